-- name: actions_errors_by_category
-- description: Verification problems by level and category (missing_field, invalid_type, schema_mismatch, tests_failed, no_matching_action, ...), with the tools behind level-2 mismatches.
-- param: since (timestamp, default 24h): start of the window
-- param: until (timestamp, optional): end of the window
SELECT
    level,
    category,
    count(*) AS problems,
    count(DISTINCT agent_id) AS agents,
    list_sort(list(DISTINCT tool_name) FILTER (WHERE tool_name IS NOT NULL)) AS tools,
    count(*) FILTER (WHERE verdict = 'flag') AS flagged,
    count(*) FILTER (WHERE verdict = 'block') AS blocked,
    max(time) AS last_seen
FROM action_findings
WHERE coalesce(grade, '') <> 'verified'
  AND time >= $since AND ($until IS NULL OR time < $until)
GROUP BY level, category
ORDER BY problems DESC, level, category
