-- name: top_contradicted_facts
-- description: The facts agents contradict most, with how many agents did and example claims.
-- param: since (timestamp, optional): only violations at or after this time (ISO 8601, or an age such as 7d)
-- param: until (timestamp, optional): only violations before this time
-- param: limit (integer, default 20): facts at most
SELECT
    contradicted_fact_id AS fact_id,
    any_value(expected) AS expected,
    count(*) AS contradictions,
    count(DISTINCT agent_id) AS agents,
    arg_max(subject || ' ' || assertion, time) AS latest_claim,
    list_slice(list(DISTINCT coalesce(matched_text, subject || ' ' || assertion)), 1, 3) AS example_claims,
    max(time) AS last_seen
FROM violations
WHERE contradicted_fact_id IS NOT NULL
  AND ($since IS NULL OR time >= $since)
  AND ($until IS NULL OR time < $until)
GROUP BY contradicted_fact_id
ORDER BY contradictions DESC, fact_id
LIMIT $limit
