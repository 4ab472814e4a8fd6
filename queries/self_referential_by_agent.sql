-- name: self_referential_by_agent
-- description: Agents that talk about their own prompt, rules or nature instead of the task.
-- param: since (timestamp, default 7d): start of the window
-- param: until (timestamp, optional): end of the window
SELECT
    v.agent_id,
    count(*) AS incidents,
    count(DISTINCT v.evaluation_id) AS outputs,
    round(100.0 * count(DISTINCT v.evaluation_id) / any_value(e.total), 2) AS outputs_pct,
    max(v.time) AS last_seen
FROM violations v
JOIN (SELECT agent_id, count(*) AS total FROM evaluations
      WHERE time >= $since AND ($until IS NULL OR time < $until) GROUP BY agent_id) e USING (agent_id)
WHERE v.category = 'self_referential' AND v.time >= $since AND ($until IS NULL OR v.time < $until)
GROUP BY v.agent_id
ORDER BY incidents DESC, v.agent_id
