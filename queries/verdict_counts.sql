-- name: verdict_counts
-- description: How many check evaluations passed, flagged, blocked or failed open, per agent and trust tier, over every check (or one).
-- param: since (timestamp, optional): only evaluations at or after this time (ISO 8601, or an age such as 24h)
-- param: until (timestamp, optional): only evaluations before this time
-- param: check (text, optional): only this check (output, tool_policy, grounding, actions)
SELECT
    agent_id,
    trust_tier,
    count(*) AS evaluations,
    count(*) FILTER (WHERE verdict = 'pass') AS pass,
    count(*) FILTER (WHERE verdict = 'flag') AS flag,
    count(*) FILTER (WHERE verdict = 'block') AS block,
    count(*) FILTER (WHERE verdict = 'error_fallback') AS error_fallback,
    round(100.0 * count(*) FILTER (WHERE verdict IN ('flag', 'block')) / count(*), 1) AS flagged_or_blocked_pct
FROM evaluations
WHERE ($since IS NULL OR time >= $since)
  AND ($until IS NULL OR time < $until)
  AND ($check IS NULL OR check_name = $check)
GROUP BY agent_id, trust_tier
ORDER BY evaluations DESC, agent_id
