-- name: grounding_score_by_agent
-- description: Grounding score per agent and time bucket: the mean score of outputs graded against evidence, with their fabricated claims and the share of outputs that had no evidence.
-- param: since (timestamp, default 24h): start of the window (ISO 8601, or an age such as 24h)
-- param: until (timestamp, optional): end of the window (default: now)
-- param: bucket (text, default 1 hour): bucket width, a DuckDB interval such as 5 minutes, 1 hour, 1 day
-- param: agent (text, optional): agent id, globs allowed
SELECT
    time_bucket(CAST($bucket AS INTERVAL), time) AS bucket,
    agent_id,
    count(*) AS outputs,
    round(avg(grounding_score), 3) AS grounding_score,
    sum(fabricated) AS fabricated_claims,
    count(*) FILTER (WHERE decision = 'APPROVE') AS approved,
    count(*) FILTER (WHERE decision IN ('REVISE', 'RETRY', 'FAIL')) AS not_approved,
    round(100.0 * count(*) FILTER (WHERE no_evidence) / count(*), 1) AS no_evidence_pct
FROM grounding_evaluations
WHERE time >= $since
  AND ($until IS NULL OR time < $until)
  AND ($agent IS NULL OR agent_id GLOB $agent)
GROUP BY bucket, agent_id
ORDER BY bucket, agent_id
