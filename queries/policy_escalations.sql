-- name: policy_escalations
-- description: Sessions with blocked tool calls, the ones that reached the escalation threshold first, with how many calls escalation then blocked.
-- param: since (timestamp, default 7d): start of the window
-- param: until (timestamp, optional): end of the window
-- param: agent (text, optional): agent id, globs allowed (worker-*)
-- param: limit (integer, default 50): sessions at most
-- One tool call is one decision: a call seen as the LLM's request and as its tool span (the same call id
-- in the trace) counts once; the store marks the later sighting `repeated`. Rows without a call id
-- (older clients) count one each. The highest blocked_count is read from every sighting: the tool
-- span's is the count escalation kept.
SELECT
    session_id,
    any_value(agent_id) AS agent_id,
    count(*) FILTER (WHERE step = 'escalation' AND repeated IS NOT TRUE) AS escalated_calls,
    count(*) FILTER (WHERE would_block AND repeated IS NOT TRUE) AS blocked_calls,
    max(blocked_count) AS max_blocked_count,
    string_agg(DISTINCT rule_id, ', ') AS rules,
    min(time) FILTER (WHERE step = 'escalation') AS first_escalation,
    max(time) AS last_seen
FROM tool_policy_decisions
WHERE time >= $since AND ($until IS NULL OR time < $until)
  AND ($agent IS NULL OR agent_id GLOB $agent)
  AND session_id IS NOT NULL
GROUP BY session_id
HAVING count(*) FILTER (WHERE would_block) > 0
ORDER BY escalated_calls DESC, blocked_calls DESC, last_seen DESC
LIMIT $limit
