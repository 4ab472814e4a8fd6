-- name: rates_by_agent
-- description: Share of each agent's outputs that were flagged or blocked (the would-be verdict in audit mode).
-- param: since (timestamp, default 24h): start of the window
-- param: until (timestamp, optional): end of the window
-- param: limit (integer, default 25): agents at most, busiest first
SELECT
    agent_id,
    any_value(trust_tier) AS trust_tier,
    count(*) AS evaluations,
    round(100.0 * count(*) FILTER (WHERE verdict = 'flag') / count(*), 2) AS flag_pct,
    round(100.0 * count(*) FILTER (WHERE verdict = 'block') / count(*), 2) AS block_pct
FROM evaluations
WHERE time >= $since AND ($until IS NULL OR time < $until)
GROUP BY agent_id
ORDER BY evaluations DESC, agent_id
LIMIT $limit
