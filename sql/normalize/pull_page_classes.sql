-- The Scryfall sightings that page copies may join (pipeline/build.py _reconcile_with_pages):
-- those of every variant whose match key, once symbols are removed, is one a page copy has
-- ($bare), or one of a ruling the API shows for a card a page copy is on ($cards: a page copy
-- in another wording joins its card's ruling). A page copy joins rulings by key, by that key, or
-- folds with them by (source, date, that key) (pipeline/reconcile.py), so these whole classes go
-- to the Python reconciliation with the page copies, and the SQL reconciliation
-- (60_reconcile.sql) works on the rest unchanged.
CREATE OR REPLACE TEMP TABLE pulled_variant AS
WITH on_page_cards AS (
    SELECT DISTINCT source, date_as_seen, text_as_seen
    FROM n_sighting
    WHERE oracle_id IN (SELECT unnest($cards::VARCHAR[]))
), bare AS (
    SELECT unnest($bare::VARCHAR[]) AS bare
    UNION
    SELECT cf_symbol_free_key(v.key)
    FROM n_variant AS v
    SEMI JOIN on_page_cards AS c
        ON c.source = v.source AND c.date_as_seen = v.date_as_seen AND c.text_as_seen = v.text_as_seen
)
SELECT source, date_as_seen, text_as_seen
FROM n_variant
WHERE cf_symbol_free_key(key) IN (SELECT bare FROM bare);

CREATE OR REPLACE TEMP TABLE pulled_sighting AS
SELECT s.*
FROM n_sighting AS s
SEMI JOIN pulled_variant AS v
    ON v.source = s.source AND v.date_as_seen = s.date_as_seen AND v.text_as_seen = s.text_as_seen;

DELETE FROM n_sighting AS s USING pulled_variant AS v
WHERE v.source = s.source AND v.date_as_seen = s.date_as_seen AND v.text_as_seen = s.text_as_seen;

DELETE FROM n_variant AS n USING pulled_variant AS v
WHERE v.source = n.source AND v.date_as_seen = n.date_as_seen AND v.text_as_seen = n.text_as_seen;

DROP TABLE pulled_variant;
