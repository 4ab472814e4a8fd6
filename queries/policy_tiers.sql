-- name: policy_tiers
-- description: Tool-call decisions by risk tier (T0 read-only, T1 writes, T2 powerful), with their block rate.
-- param: since (timestamp, default 24h): start of the window
-- param: until (timestamp, optional): end of the window
-- param: agent (text, optional): agent id, globs allowed (worker-*)
-- One tool call is one decision: a call seen as the LLM's request and as its tool span (the same call id
-- in the trace) counts once; the store marks the later sighting `repeated`. Rows without a call id
-- (older clients) count one each.
SELECT
    risk_tier,
    count(*) AS decisions,
    round(100.0 * count(*) / sum(count(*)) OVER (), 2) AS pct,
    count(*) FILTER (WHERE would_block) AS blocks,
    round(100.0 * count(*) FILTER (WHERE would_block) / count(*), 2) AS block_pct,
    count(*) FILTER (WHERE decision = 'dry_run') AS dry_run
FROM tool_policy_decisions
WHERE time >= $since AND ($until IS NULL OR time < $until)
  AND ($agent IS NULL OR agent_id GLOB $agent)
  AND repeated IS NOT TRUE
GROUP BY risk_tier
ORDER BY risk_tier
