-- The rulings seen on one origin only, with their texts: a detail table of the "rulings" report's
-- HTML page, to check by eye what only one source says.
WITH origins AS (
    SELECT ruling_id, count(DISTINCT origin) AS n, min(origin) AS origin
    FROM ruling_sighting
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
ORDER BY o.origin, r.published_at NULLS LAST, r.text, r.ruling_id;
