-- name: actions_by_agent
-- description: Per agent, how many outputs passed verification and how its action claims were graded.
-- param: since (timestamp, default 24h): start of the window
-- param: until (timestamp, optional): end of the window
-- param: limit (integer, default 25): agents at most, the most contradicted first
SELECT
    agent_id,
    count(DISTINCT evaluation_id) AS outputs,
    round(100.0 * count(DISTINCT evaluation_id) FILTER (WHERE passed) / count(DISTINCT evaluation_id), 2) AS pass_pct,
    coalesce(sum(claims), 0) AS claims,
    coalesce(sum(verified), 0) AS verified,
    coalesce(sum(unverified), 0) AS unverified,
    coalesce(sum(contradicted), 0) AS contradicted,
    count(*) FILTER (WHERE level = 1 AND NOT passed) AS structure_errors
FROM action_checks
WHERE time >= $since AND ($until IS NULL OR time < $until)
GROUP BY agent_id
ORDER BY contradicted DESC, unverified DESC, outputs DESC, agent_id
LIMIT $limit
