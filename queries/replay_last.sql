-- name: replay_last
-- description: The last replay (claimwatch replay --config candidate.yaml) per agent and trust tier: evaluations, would-flag and would-block rates as recorded and under the candidate, and the verdicts that flip; agents with outputs in the range that the replay did not cover show their recorded figures only.
-- param: since (timestamp, default 7d): start of the range for the recorded figures
-- param: until (timestamp, optional): end of the range
WITH last AS (
    SELECT run_id, time, candidate FROM replay_runs ORDER BY time DESC LIMIT 1
), replayed AS (
    SELECT a.*, l.candidate, l.time AS replayed_at FROM replay_agents a JOIN last l USING (run_id)
), recorded AS (
    SELECT agent_id, trust_tier, count(*) AS outputs,
           round(100.0 * count(*) FILTER (WHERE verdict = 'block') / count(*), 2) AS block_pct
    FROM evaluations
    WHERE check_name = 'output' AND time >= $since AND ($until IS NULL OR time < $until)
    GROUP BY ALL
)
SELECT
    coalesce(r.agent_id, o.agent_id) AS agent_id,
    coalesce(r.trust_tier, o.trust_tier) AS trust_tier,
    r.candidate_trust_tier,
    r.mode,
    r.candidate_mode,
    r.evaluations,
    r.flag_pct_now,
    r.flag_pct_candidate,
    r.block_pct_now,
    r.block_pct_candidate,
    r.flips,
    r.to_block,
    r.to_pass,
    o.outputs AS outputs_in_range,
    o.block_pct AS block_pct_in_range,
    r.candidate,
    r.replayed_at
FROM replayed r
FULL OUTER JOIN recorded o ON r.agent_id = o.agent_id AND r.trust_tier IS NOT DISTINCT FROM o.trust_tier
ORDER BY r.to_block DESC NULLS LAST, r.flips DESC NULLS LAST, agent_id
