-- name: claims
-- description: Every claim detected in agent output (confirmed, contradicted, unverified, or not checked under the agent's policy), newest first, with its fact status and what the policy did.
-- param: since (timestamp, default 24h): start of the window
-- param: until (timestamp, optional): end of the window
-- param: agent (text, optional): agent id, globs allowed
-- param: status (text, optional): fact status (confirmed, contradicted, no_fact_found, expired_fact)
-- param: category (text, optional): claim category
-- param: limit (integer, default 100): rows at most
SELECT
    time, agent_id, mode, category, subject, assertion, negative, confidence, fact_status, fact_id, expected,
    action, verdict, matched_text, trace_id, span_id
FROM claims
WHERE time >= $since
  AND ($until IS NULL OR time < $until)
  AND ($agent IS NULL OR agent_id GLOB $agent)
  AND ($status IS NULL OR fact_status = $status)
  AND ($category IS NULL OR category = $category)
ORDER BY time DESC, claim_index
LIMIT $limit
