-- name: verdicts_over_time
-- description: The verdict mix per time bucket: how many outputs passed, flagged, blocked or failed open.
-- param: since (timestamp, default 24h): start of the window (ISO 8601, or an age such as 24h)
-- param: until (timestamp, optional): end of the window (default: now)
-- param: bucket (text, default 1 hour): bucket width, a DuckDB interval such as 5 minutes, 1 hour, 1 day
-- param: agent (text, optional): agent id, globs allowed
SELECT
    time_bucket(CAST($bucket AS INTERVAL), time) AS bucket,
    count(*) FILTER (WHERE verdict = 'pass') AS pass,
    count(*) FILTER (WHERE verdict = 'flag') AS flag,
    count(*) FILTER (WHERE verdict = 'block') AS block,
    count(*) FILTER (WHERE verdict = 'error_fallback') AS error_fallback
FROM evaluations
WHERE time >= $since
  AND ($until IS NULL OR time < $until)
  AND ($agent IS NULL OR agent_id GLOB $agent)
GROUP BY bucket
ORDER BY bucket
