-- name: rollout_readiness
-- description: For each agent in audit mode, how often enforcement would have blocked or flagged it (any check) under its configured policy, with the top reasons; ready = enough outputs and a would-block rate under the threshold.
-- param: since (timestamp, default 7d): start of the window
-- param: until (timestamp, optional): end of the window
-- param: max_block_pct (number, default 1.0): highest would-block rate (percent) that still counts as ready
-- param: min_outputs (integer, default 50): fewest outputs in the window to judge an agent
WITH e AS (
    SELECT agent_id, trust_tier, verdict
    FROM evaluations
    WHERE mode = 'audit' AND time >= $since AND ($until IS NULL OR time < $until)
), reasons AS (
    SELECT
        agent_id,
        coalesce('fact ' || contradicted_fact_id, detector_id, check_name || ' ' || coalesce(category, 'block')) AS reason,
        count(*) AS n
    FROM violations
    WHERE mode = 'audit' AND action = 'block' AND time >= $since AND ($until IS NULL OR time < $until)
    GROUP BY ALL
), top_reasons AS (
    SELECT agent_id, list(reason || ' (' || n || ')' ORDER BY n DESC, reason)[1:3] AS top_block_reasons
    FROM reasons GROUP BY agent_id
)
SELECT
    agent_id,
    any_value(trust_tier) AS trust_tier,
    count(*) AS outputs,
    round(100.0 * count(*) FILTER (WHERE verdict = 'block') / count(*), 2) AS would_block_pct,
    round(100.0 * count(*) FILTER (WHERE verdict = 'flag') / count(*), 2) AS would_flag_pct,
    any_value(t.top_block_reasons) AS top_block_reasons,
    count(*) >= $min_outputs
        AND 100.0 * count(*) FILTER (WHERE verdict = 'block') / count(*) <= $max_block_pct AS ready
FROM e LEFT JOIN top_reasons t USING (agent_id)
GROUP BY agent_id
ORDER BY ready DESC, would_block_pct, agent_id
