-- Reconciliation (pipeline/reconcile.py) for sightings that are all anchors: dated, with a
-- source, in English (every Scryfall API sighting is). Anchors that share (source, date,
-- match_key) are one ruling; a group whose texts lost their {…} symbols joins the one group
-- with symbols that has the same key once symbols are removed (flag symbols_lost).
-- Worked on the distinct variants (n_variant), then spread to the sightings.

-- The ruling of each variant: its group (source, date, key), folded into the one group with
-- symbols that has the same key once symbols are removed, if the group has none.
CREATE OR REPLACE TEMP TABLE n_variant_ruling AS
WITH grouped AS (
    SELECT source, date_as_seen AS published_at, key, bool_or(has_symbols) AS has_symbols
    FROM n_variant
    GROUP BY ALL
), keyed AS (
    SELECT *, cf_symbol_free_key(key) AS bare FROM grouped
), symbolic AS (
    SELECT source, published_at, bare, any_value(key) AS key, count(*) AS n
    FROM keyed WHERE has_symbols GROUP BY ALL
), targeted AS (
    SELECT k.source, k.published_at, k.key,
           CASE WHEN NOT k.has_symbols AND s.n = 1 THEN s.key ELSE k.key END AS ruling_key,
           coalesce(NOT k.has_symbols AND s.n = 1, false) AS symbols_lost
    FROM keyed AS k
    LEFT JOIN symbolic AS s
        ON s.source = k.source AND s.published_at IS NOT DISTINCT FROM k.published_at AND s.bare = k.bare
), n_group AS (
    SELECT *, 'r' || left(sha256(source || chr(31) || coalesce(published_at, '') || chr(31) || ruling_key), 15) AS ruling_id
    FROM targeted
)
SELECT v.source, v.date_as_seen, v.text_as_seen, v.canon, v.score, g.ruling_id, g.ruling_key, g.symbols_lost
FROM n_variant AS v
JOIN n_group AS g
    ON g.source = v.source AND g.published_at IS NOT DISTINCT FROM v.date_as_seen AND g.key = v.key;

-- A ruling's text: a copy with its symbols, then the best typography, then the least text.
CREATE OR REPLACE TEMP TABLE n_ruling AS
SELECT ruling_id, any_value(source) AS source, any_value(date_as_seen) AS published_at,
       arg_min(canon, {'lost': symbols_lost, 'score': -score, 'canon': canon}) AS text,
       any_value(ruling_key) AS match_key
FROM n_variant_ruling
GROUP BY ruling_id;

CREATE OR REPLACE TEMP TABLE n_ruling_sighting AS
SELECT
    coalesce(s.sighting_id, cf_sighting_id(coalesce(s.place, s.doc_id), s.oracle_id, s.position, s.lang)) AS sighting_id,
    v.ruling_id, s.doc_id, s.origin, s.oracle_id, s.position, s.lang, s.text_as_seen, s.date_as_seen,
    s.source AS source_as_seen,
    CASE WHEN v.symbols_lost THEN ['symbols_lost'] ELSE []::VARCHAR[] END AS flags
FROM n_sighting AS s
JOIN n_variant_ruling AS v
    ON v.source = s.source AND v.date_as_seen = s.date_as_seen AND v.text_as_seen = s.text_as_seen;
