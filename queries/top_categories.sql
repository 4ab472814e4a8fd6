-- name: top_categories
-- description: Violations per claim category and severity.
-- param: since (timestamp, default 24h): start of the window
-- param: until (timestamp, optional): end of the window
SELECT
    category,
    count(*) AS violations,
    count(*) FILTER (WHERE severity = 'high') AS high,
    count(*) FILTER (WHERE severity = 'medium') AS medium,
    count(*) FILTER (WHERE severity = 'low') AS low
FROM violations
WHERE time >= $since AND ($until IS NULL OR time < $until)
GROUP BY category
ORDER BY violations DESC, category
