-- Report "rulings": counts in long form (measure, value, count), one block per measure.
-- "rulings" counts distinct rulings; "sightings" counts every place a ruling was seen.
WITH shared AS (
    SELECT r.ruling_id, count(cr.oracle_id) AS cards
    FROM ruling AS r LEFT JOIN card_ruling AS cr USING (ruling_id)
    GROUP BY r.ruling_id
),
origins AS (
    SELECT ruling_id, count(DISTINCT origin) AS n, min(origin) AS origin
    FROM ruling_sighting
    GROUP BY ruling_id
),
blocks AS (
    SELECT 1 AS block, 'rulings by source' AS measure, source AS value, NULL::INTEGER AS sort_key,
           count(*) AS count
    FROM ruling GROUP BY source
    UNION ALL
    SELECT 2, 'rulings by date', coalesce(CAST(published_at AS VARCHAR), 'undated'), NULL, count(*)
    FROM ruling GROUP BY published_at
    UNION ALL
    SELECT 3, 'rulings by cards sharing them', CAST(cards AS VARCHAR), cards, count(*)
    FROM shared GROUP BY cards
    UNION ALL
    SELECT 4, 'sightings by origin', origin, NULL, count(*)
    FROM ruling_sighting GROUP BY origin
    UNION ALL
    SELECT 5, 'rulings seen on one origin only', origin, NULL, count(*)
    FROM origins WHERE n = 1 GROUP BY origin
    UNION ALL
    SELECT 6, 'rulings seen on several origins', CAST(n AS VARCHAR) || ' origins', n, count(*)
    FROM origins WHERE n > 1 GROUP BY n
)
SELECT measure, value, count
FROM blocks
ORDER BY block, sort_key NULLS LAST, value;
