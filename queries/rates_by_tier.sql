-- name: rates_by_tier
-- description: Share of outputs flagged or blocked per trust tier.
-- param: since (timestamp, default 24h): start of the window
-- param: until (timestamp, optional): end of the window
SELECT
    trust_tier,
    count(*) AS evaluations,
    round(100.0 * count(*) FILTER (WHERE verdict = 'flag') / count(*), 2) AS flag_pct,
    round(100.0 * count(*) FILTER (WHERE verdict = 'block') / count(*), 2) AS block_pct
FROM evaluations
WHERE time >= $since AND ($until IS NULL OR time < $until)
GROUP BY trust_tier
ORDER BY CASE trust_tier WHEN 'untrusted' THEN 0 WHEN 'restricted' THEN 1 WHEN 'standard' THEN 2
                         WHEN 'trusted' THEN 3 ELSE 4 END
