-- name: claim_status_by_agent
-- description: Per agent, how its claims stood against the fact registries: confirmed, contradicted, unverified (no fact or expired), and not checked under its policy; the base of precision checks and fact curation.
-- param: since (timestamp, default 7d): start of the window
-- param: until (timestamp, optional): end of the window
SELECT
    agent_id,
    count(*) AS claims,
    count(*) FILTER (WHERE fact_status = 'confirmed') AS confirmed,
    count(*) FILTER (WHERE fact_status = 'contradicted') AS contradicted,
    count(*) FILTER (WHERE fact_status IN ('no_fact_found', 'expired_fact')) AS unverified,
    count(*) FILTER (WHERE fact_status IS NULL) AS not_checked,
    round(100.0 * count(*) FILTER (WHERE fact_status = 'confirmed') / count(*), 1) AS confirmed_pct
FROM claims
WHERE time >= $since AND ($until IS NULL OR time < $until)
GROUP BY agent_id
ORDER BY claims DESC, agent_id
