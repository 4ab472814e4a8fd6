-- name: top_detectors
-- description: The detectors that raised the most violations, with their category and how many blocked.
-- param: since (timestamp, default 24h): start of the window
-- param: until (timestamp, optional): end of the window
-- param: limit (integer, default 15): detectors at most
SELECT
    detector_id,
    any_value(category) AS category,
    count(*) AS violations,
    count(*) FILTER (WHERE action = 'block') AS blocks,
    count(DISTINCT agent_id) AS agents
FROM violations
WHERE time >= $since AND ($until IS NULL OR time < $until)
GROUP BY detector_id
ORDER BY violations DESC, detector_id
LIMIT $limit
