-- name: grounding_top_fabricated
-- description: What agents state without support: FABRICATED claims by what was unsupported (money, number, date, name, status, dynamic_fact, ...) and, as no_evidence, factual claims made with no evidence at all; how many were flagged, with an example reason.
-- param: since (timestamp, default 24h): start of the window
-- param: until (timestamp, optional): end of the window
-- param: agent (text, optional): agent id, globs allowed
-- param: limit (integer, default 20): kinds at most, most frequent first
SELECT
    CASE WHEN grade IS NULL THEN 'no_evidence' ELSE coalesce(issue, 'fabricated') END AS unsupported,
    count(*) AS claims,
    count(*) FILTER (WHERE grade = 'FABRICATED') AS fabricated,
    count(*) FILTER (WHERE verdict <> 'pass') AS flagged,
    round(avg(confidence), 2) AS avg_confidence,
    count(DISTINCT agent_id) AS agents,
    any_value(reason) AS example_reason,
    max(time) AS last_seen
FROM grounding_claims
WHERE (grade = 'FABRICATED' OR grade IS NULL)
  AND time >= $since
  AND ($until IS NULL OR time < $until)
  AND ($agent IS NULL OR agent_id GLOB $agent)
GROUP BY 1
ORDER BY claims DESC, unsupported
LIMIT $limit
