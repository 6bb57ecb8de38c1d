-- Row counts of the warehouse tables the rulings dataset is made from, for its datasheet.
SELECT 'card' AS "table", count(*) AS "rows" FROM card
UNION ALL SELECT 'card_ruling', count(*) FROM card_ruling
UNION ALL SELECT 'ruling', count(*) FROM ruling
UNION ALL SELECT 'ruling_sighting', count(*) FROM ruling_sighting
UNION ALL SELECT 'ruling_translation', count(*) FROM ruling_translation
ORDER BY 1;
