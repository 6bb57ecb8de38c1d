-- Each card's rulings, at the place of its first sighting of each (from n_ruling_sighting).
CREATE OR REPLACE TEMP TABLE n_card_ruling AS
SELECT oracle_id, ruling_id, min(position) AS position
FROM n_ruling_sighting
WHERE oracle_id IS NOT NULL
GROUP BY oracle_id, ruling_id;

-- The steps above are done with: their memory goes to the load.
DROP TABLE n_variant_ruling;
DROP TABLE n_variant;
DROP TABLE n_sighting;

CREATE OR REPLACE TEMP TABLE n_ruling_translation AS
SELECT * FROM ruling_translation LIMIT 0;
