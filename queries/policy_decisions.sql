-- name: policy_decisions
-- description: Tool-call policy decisions by outcome and step (the seed's soak totals): allowed, blocked by deny pattern, allowlist or escalation, dry-run.
-- param: since (timestamp, default 24h): start of the window
-- param: until (timestamp, optional): end of the window
-- param: agent (text, optional): agent id, globs allowed (worker-*)
-- param: source (text, optional): execute_tool (calls that ran) or llm_output (calls the LLM asked for)
-- One tool call is one decision: a call seen as the LLM's request and as its tool span (the same call id
-- in the trace) counts once; the store marks the later sighting `repeated`. Rows without a call id
-- (older clients) count one each.
SELECT
    decision,
    step,
    count(*) AS decisions,
    round(100.0 * count(*) / sum(count(*)) OVER (), 2) AS pct,
    count(*) FILTER (WHERE mode = 'audit' AND would_block) AS would_block_in_audit,
    count(DISTINCT agent_id) AS agents,
    count(DISTINCT session_id) AS sessions
FROM tool_policy_decisions
WHERE time >= $since AND ($until IS NULL OR time < $until)
  AND ($agent IS NULL OR agent_id GLOB $agent)
  AND ($source IS NULL OR source = $source)
  AND (repeated IS NOT TRUE OR $source IS NOT NULL)  -- one source: every sighting of it
GROUP BY decision, step
ORDER BY decisions DESC, decision, step
