-- Reconciliation (pipeline/reconcile.py) for sightings that are all anchors: dated, with a
-- source, in English (every Scryfall API sighting is). Anchors that share (source, date,
-- match_key) are one ruling; a group whose texts lost their {…} symbols joins the one group
-- with symbols that has the same key once symbols are removed (flag symbols_lost).
CREATE OR REPLACE TEMP TABLE n_group AS
SELECT s.source, s.date_as_seen AS published_at, t.key, bool_or(t.has_symbols) AS has_symbols
FROM n_sighting AS s JOIN n_text AS t USING (text_as_seen)
GROUP BY ALL;

CREATE OR REPLACE TEMP TABLE n_group_target AS
WITH keyed AS (
    SELECT *, cf_symbol_free_key(key) AS bare FROM n_group
), symbolic AS (
    SELECT source, published_at, bare, any_value(key) AS key, count(*) AS n
    FROM keyed WHERE has_symbols GROUP BY ALL
)
SELECT k.source, k.published_at, k.key,
       CASE WHEN NOT k.has_symbols AND s.n = 1 THEN s.key ELSE k.key END AS ruling_key,
       (NOT k.has_symbols AND s.n = 1) AS symbols_lost
FROM keyed AS k
LEFT JOIN symbolic AS s
    ON s.source = k.source AND s.published_at IS NOT DISTINCT FROM k.published_at AND s.bare = k.bare;

CREATE OR REPLACE TEMP TABLE n_member AS
SELECT s.*, t.canon, t.key, g.ruling_key, g.symbols_lost,
       'r' || left(sha256(s.source || chr(31) || coalesce(s.date_as_seen, '') || chr(31) || g.ruling_key), 15) AS ruling_id
FROM n_sighting AS s
JOIN n_text AS t USING (text_as_seen)
JOIN n_group_target AS g
    ON g.source = s.source AND g.published_at IS NOT DISTINCT FROM s.date_as_seen AND g.key = t.key;

CREATE OR REPLACE TEMP TABLE n_ruling AS
SELECT ruling_id, source, date_as_seen AS published_at,
       first(canon ORDER BY symbols_lost, cf_typographic_score(canon) DESC, canon) AS text,
       ruling_key AS match_key
FROM n_member
GROUP BY ruling_id, source, date_as_seen, ruling_key;

CREATE OR REPLACE TEMP TABLE n_card_ruling AS
SELECT oracle_id, ruling_id, first(position ORDER BY position, doc_id) AS position
FROM n_member
WHERE oracle_id IS NOT NULL
GROUP BY oracle_id, ruling_id;

CREATE OR REPLACE TEMP TABLE n_ruling_sighting AS
SELECT
    's' || left(sha256(doc_id || chr(31) || coalesce(oracle_id, '') || chr(31) || CAST(position AS VARCHAR)
                       || chr(31) || lang), 15) AS sighting_id,
    ruling_id, doc_id, origin, oracle_id, position, lang, text_as_seen, date_as_seen,
    source AS source_as_seen,
    CASE WHEN symbols_lost THEN ['symbols_lost'] ELSE []::VARCHAR[] END AS flags
FROM n_member;

CREATE OR REPLACE TEMP TABLE n_ruling_translation AS
SELECT * FROM ruling_translation LIMIT 0;
