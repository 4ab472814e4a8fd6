-- name: actions_top_claims
-- description: The action claims most often unverified or contradicted by the trace (what agents say they did and did not).
-- param: since (timestamp, optional): only claims at or after this time (ISO 8601, or an age such as 7d)
-- param: until (timestamp, optional): only claims before this time
-- param: grade (text, optional): unverified or contradicted (default: both)
-- param: limit (integer, default 20): claims at most
SELECT
    claim_kind,
    subject,
    grade,
    count(*) AS claims,
    count(DISTINCT agent_id) AS agents,
    mode(category) AS category,
    arg_max(reason, time) AS latest_reason,
    list_slice(list(DISTINCT claim_text) FILTER (WHERE claim_text IS NOT NULL), 1, 3) AS example_claims,
    max(time) AS last_seen
FROM action_findings
WHERE level = 3
  AND grade IN ('unverified', 'contradicted')
  AND ($grade IS NULL OR grade = $grade)
  AND ($since IS NULL OR time >= $since)
  AND ($until IS NULL OR time < $until)
GROUP BY claim_kind, subject, grade
ORDER BY claims DESC, grade, claim_kind, subject
LIMIT $limit
