-- name: actions_pass_rate_by_level
-- description: Outputs checked at each verification level (1 structure, 2 tool results, 3 action claims) and the share that passed.
-- param: since (timestamp, default 24h): start of the window
-- param: until (timestamp, optional): end of the window
SELECT
    level,
    CASE level WHEN 1 THEN 'structure' WHEN 2 THEN 'tool results' ELSE 'action claims' END AS what,
    count(*) AS checked,
    count(*) FILTER (WHERE passed) AS passed,
    count(*) FILTER (WHERE NOT passed) AS failed,
    round(100.0 * count(*) FILTER (WHERE passed) / count(*), 2) AS pass_pct,
    round(avg(evaluation_us), 1) AS avg_us
FROM action_checks
WHERE time >= $since AND ($until IS NULL OR time < $until)
GROUP BY level
ORDER BY level
