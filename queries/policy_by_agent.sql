-- name: policy_by_agent
-- description: Tool-call policy per agent: decisions, what enforcement blocks or would block, dry-runs and escalations; the rollout view for audit-mode agents.
-- param: since (timestamp, default 24h): start of the window
-- param: until (timestamp, optional): end of the window
-- param: agent (text, optional): agent id, globs allowed (worker-*)
-- param: limit (integer, default 50): agents at most
-- One tool call is one decision: a call seen as the LLM's request and as its tool span (the same call id
-- in the trace) counts once; the store marks the later sighting `repeated`. Rows without a call id
-- (older clients) count one each.
SELECT
    agent_id,
    any_value(mode) AS mode,
    any_value(profile) AS profile,
    count(*) AS decisions,
    count(*) FILTER (WHERE would_block) AS blocks,
    round(100.0 * count(*) FILTER (WHERE would_block) / count(*), 2) AS block_pct,
    count(*) FILTER (WHERE would_block AND mode = 'audit') AS would_block_in_audit,
    count(*) FILTER (WHERE step = 'escalation') AS escalations,
    count(*) FILTER (WHERE decision = 'dry_run') AS dry_run,
    mode(rule_id) FILTER (WHERE rule_id IS NOT NULL) AS top_rule,
    round(quantile_cont(evaluation_us, 0.5), 1) AS p50_us
FROM tool_policy_decisions
WHERE time >= $since AND ($until IS NULL OR time < $until)
  AND ($agent IS NULL OR agent_id GLOB $agent)
  AND repeated IS NOT TRUE
GROUP BY agent_id
ORDER BY blocks DESC, decisions DESC, agent_id
LIMIT $limit
