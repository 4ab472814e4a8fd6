-- name: policy_escalations
-- description: Sessions with blocked tool calls, the ones that reached the escalation threshold first, with how many calls escalation then blocked.
-- param: since (timestamp, default 7d): start of the window
-- param: until (timestamp, optional): end of the window
-- param: agent (text, optional): agent id, globs allowed (worker-*)
-- param: limit (integer, default 50): sessions at most
-- One tool call is one decision: a call seen as the LLM's request and as its tool span (the same call
-- id in the trace) counts once, as its execution, the sighting escalation counts. Rows without a call
-- id (older clients) count one each.
WITH calls AS (
    SELECT * FROM tool_policy_decisions
    WHERE time >= $since AND ($until IS NULL OR time < $until)
      AND ($agent IS NULL OR agent_id GLOB $agent)
      AND session_id IS NOT NULL
    QUALIFY tool_call_id IS NULL OR row_number() OVER (
        PARTITION BY trace_id, tool_call_id ORDER BY source = 'llm_output', time, span_id
    ) = 1
)
SELECT
    session_id,
    any_value(agent_id) AS agent_id,
    count(*) FILTER (WHERE step = 'escalation') AS escalated_calls,
    count(*) FILTER (WHERE would_block) AS blocked_calls,
    max(blocked_count) AS max_blocked_count,
    string_agg(DISTINCT rule_id, ', ') AS rules,
    min(time) FILTER (WHERE step = 'escalation') AS first_escalation,
    max(time) AS last_seen
FROM calls
GROUP BY session_id
HAVING count(*) FILTER (WHERE would_block) > 0
ORDER BY escalated_calls DESC, blocked_calls DESC, last_seen DESC
LIMIT $limit
