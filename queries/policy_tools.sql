-- name: policy_tools
-- description: Tool-call decisions per tool (the seed's tool distribution), with blocks and the most frequent blocking rule.
-- param: since (timestamp, default 24h): start of the window
-- param: until (timestamp, optional): end of the window
-- param: agent (text, optional): agent id, globs allowed (worker-*)
-- param: limit (integer, default 20): tools at most
-- One tool call is one decision: a call seen as the LLM's request and as its tool span (the same call id
-- in the trace) counts once; the store marks the later sighting `repeated`. Rows without a call id
-- (older clients) count one each.
SELECT
    tool_name,
    any_value(risk_tier) AS risk_tier,
    count(*) AS decisions,
    round(100.0 * count(*) / sum(count(*)) OVER (), 2) AS pct,
    count(*) FILTER (WHERE would_block) AS blocks,
    mode(rule_id) FILTER (WHERE rule_id IS NOT NULL) AS top_rule
FROM tool_policy_decisions
WHERE time >= $since AND ($until IS NULL OR time < $until)
  AND ($agent IS NULL OR agent_id GLOB $agent)
  AND repeated IS NOT TRUE
GROUP BY tool_name
ORDER BY decisions DESC, tool_name
LIMIT $limit
