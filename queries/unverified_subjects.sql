-- name: unverified_subjects
-- description: Claims no fact could check, grouped by subject: the material to curate new facts from (RFC-003 §15.4 step 2). Read from the claims table, so it sees every agent, whatever its policy does with unverified claims.
-- param: since (timestamp, default 7d): start of the window
-- param: until (timestamp, optional): end of the window
-- param: limit (integer, default 50): subjects at most
SELECT
    lower(subject) AS subject,
    category,
    count(*) AS claims,
    count(DISTINCT agent_id) AS agents,
    list_slice(list(DISTINCT assertion), 1, 5) AS assertions,
    count(*) FILTER (WHERE fact_status = 'expired_fact') AS expired_fact,
    max(time) AS last_seen
FROM claims
WHERE fact_status IN ('no_fact_found', 'expired_fact')
  AND time >= $since AND ($until IS NULL OR time < $until)
GROUP BY lower(subject), category
ORDER BY claims DESC, subject
LIMIT $limit
