-- The rulings seen on one origin only, with their texts: a detail table of the "rulings" report's
-- HTML page, to check by eye what only one source says. The first $limit: the page shows no more
-- (pipeline/report.py DETAIL_ROWS), and a bulk query's 280,000 texts took 1.6-1.7 s to fetch.
WITH origins AS (  -- as in rulings.sql
    SELECT ruling_id, count(*) AS n, min(origin) AS origin
    FROM (SELECT DISTINCT ruling_id, origin FROM ruling_sighting)
    GROUP BY ruling_id
),
cards AS (
    SELECT ruling_id, count(*) AS cards FROM card_ruling GROUP BY ruling_id
)
SELECT o.origin, r.ruling_id, r.source, r.published_at, coalesce(c.cards, 0) AS cards, r.text
FROM ruling AS r
JOIN origins AS o USING (ruling_id)
LEFT JOIN cards AS c USING (ruling_id)
WHERE o.n = 1
ORDER BY o.origin, r.published_at NULLS LAST, r.text, r.ruling_id
LIMIT $limit;
