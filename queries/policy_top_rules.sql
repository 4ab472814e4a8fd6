-- name: policy_top_rules
-- description: Deny rules that blocked (or would have blocked, in audit mode) the most tool calls, with the normalisation that exposed them.
-- param: since (timestamp, default 24h): start of the window
-- param: until (timestamp, optional): end of the window
-- param: agent (text, optional): agent id, globs allowed (worker-*)
-- param: limit (integer, default 20): rules at most
-- One tool call is one decision: a call seen as the LLM's request and as its tool span (the same call id
-- in the trace) counts once; the store marks the later sighting `repeated`. Rows without a call id
-- (older clients) count one each.
SELECT
    rule_id,
    any_value(category) AS category,
    any_value(severity) AS severity,
    count(*) AS blocks,
    count(*) FILTER (WHERE mode = 'audit') AS would_block_in_audit,
    count(*) FILTER (WHERE normalisation IS NOT NULL) AS via_normalisation,
    string_agg(DISTINCT normalisation, ', ') AS normalisations,
    string_agg(DISTINCT tool_name, ', ') AS tools,
    count(DISTINCT agent_id) AS agents,
    max(time) AS last_seen
FROM tool_policy_decisions
WHERE step = 'deny_pattern' AND repeated IS NOT TRUE
  AND time >= $since AND ($until IS NULL OR time < $until)
  AND ($agent IS NULL OR agent_id GLOB $agent)
GROUP BY rule_id
ORDER BY blocks DESC, rule_id
LIMIT $limit
