-- name: latency
-- description: Validation time per agent (p50, p95, p99 in microseconds) and how often validation failed open.
-- param: since (timestamp, default 24h): start of the window
-- param: until (timestamp, optional): end of the window
SELECT
    coalesce(agent_id, '(all)') AS agent_id,
    count(*) AS evaluations,
    round(quantile_cont(evaluation_us, 0.5), 1) AS p50_us,
    round(quantile_cont(evaluation_us, 0.95), 1) AS p95_us,
    round(quantile_cont(evaluation_us, 0.99), 1) AS p99_us,
    count(*) FILTER (WHERE verdict = 'error_fallback') AS error_fallback
FROM evaluations
WHERE time >= $since AND ($until IS NULL OR time < $until)
GROUP BY ROLLUP (agent_id)
ORDER BY agent_id IS NOT NULL, evaluations DESC
