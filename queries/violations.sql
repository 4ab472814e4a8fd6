-- name: violations
-- description: Findings of every check (output claims, tool calls, grounding, action claims), newest first, with the reason each was raised and the matched text when stored; every filter is optional.
-- param: since (timestamp, optional): only violations at or after this time (ISO 8601, or an age such as 24h, 7d)
-- param: until (timestamp, optional): only violations before this time
-- param: agent (text, optional): agent id, globs allowed (worker-*)
-- param: session (text, optional): session or conversation id
-- param: tier (text, optional): trust tier (untrusted, restricted, standard, trusted, privileged)
-- param: category (text, optional): claim category (system_state, entity_name, existence, operational_status, capability, self_referential)
-- param: detector (text, optional): detector id, globs allowed (system_state.*)
-- param: verdict (text, optional): verdict of the evaluation (flag, block)
-- param: mode (text, optional): audit or enforce
-- param: fact (text, optional): id of the contradicted fact
-- param: trace (text, optional): trace id (32 hex digits)
-- param: check (text, optional): which check found it (output, tool_policy, grounding, actions)
-- param: limit (integer, default 100): rows at most
SELECT
    time, check_name, agent_id, session_id, trust_tier, mode, verdict, action, enforced, severity, category,
    detector_id, subject, assertion, matched_text, contradicted_fact_id AS fact_id, expected, confidence, reason,
    trace_id, span_id
FROM violations
WHERE ($since IS NULL OR time >= $since)
  AND ($until IS NULL OR time < $until)
  AND ($agent IS NULL OR agent_id GLOB $agent)
  AND ($session IS NULL OR session_id = $session)
  AND ($tier IS NULL OR trust_tier = $tier)
  AND ($category IS NULL OR category = $category)
  AND ($detector IS NULL OR detector_id GLOB $detector)
  AND ($verdict IS NULL OR verdict = $verdict)
  AND ($mode IS NULL OR mode = $mode)
  AND ($fact IS NULL OR contradicted_fact_id = $fact)
  AND ($trace IS NULL OR trace_id = lower($trace))
  AND ($check IS NULL OR check_name = $check)
ORDER BY time DESC
LIMIT $limit
