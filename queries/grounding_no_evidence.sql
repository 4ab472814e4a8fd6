-- name: grounding_no_evidence
-- description: Outputs that stated facts with no evidence in their trace (no tool result, document or earlier message to ground them in): the agents answering from memory.
-- param: since (timestamp, default 24h): start of the window
-- param: until (timestamp, optional): end of the window
-- param: agent (text, optional): agent id, globs allowed
-- param: limit (integer, default 100): rows at most, newest first
SELECT
    time,
    agent_id,
    session_id,
    trace_id,
    span_id,
    factual AS factual_claims
FROM grounding_evaluations
WHERE no_evidence
  AND factual > 0
  AND time >= $since
  AND ($until IS NULL OR time < $until)
  AND ($agent IS NULL OR agent_id GLOB $agent)
ORDER BY time DESC
LIMIT $limit
