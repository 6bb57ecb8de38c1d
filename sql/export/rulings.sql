-- The rulings dataset: one row per distinct ruling, with the cards it applies to, its
-- translations and where it was seen. A temp view, read by `casefile export` and by api.rulings().
-- Every list has a fixed order, and rows are ordered by ruling_id: the same warehouse gives the
-- same rows in the same order. Every order says ASC: DuckDB's default_order, which a notebook's
-- connection may change for the database it shares with api.rulings(), decides one that does not.
CREATE OR REPLACE TEMP VIEW export_rulings AS
WITH cards AS (
    SELECT cr.ruling_id,
           count(*)                                         AS card_count,
           list(c.oracle_id ORDER BY c.name ASC, c.oracle_id ASC) AS oracle_ids,
           list(c.name ORDER BY c.name ASC, c.oracle_id ASC)      AS card_names
    FROM card_ruling AS cr
    JOIN card AS c USING (oracle_id)
    GROUP BY cr.ruling_id
),
translations AS (
    SELECT ruling_id,
           list({'lang': lang, 'origin': origin, 'text': text, 'machine_translated': machine_translated}
                ORDER BY lang ASC, origin ASC, text ASC)    AS translations
    FROM ruling_translation
    GROUP BY ruling_id
),
seen AS (
    SELECT ruling_id,
           list(DISTINCT origin ORDER BY origin ASC)        AS origins,
           count(*)                                         AS sightings
    FROM ruling_sighting
    GROUP BY ruling_id
)
SELECT r.ruling_id,
       r.source,
       r.published_at,
       r.text,
       coalesce(k.card_count, 0)       AS card_count,
       coalesce(k.oracle_ids, [])      AS oracle_ids,
       coalesce(k.card_names, [])      AS card_names,
       coalesce(t.translations, [])    AS translations,
       coalesce(s.origins, [])         AS origins,
       coalesce(s.sightings, 0)        AS sightings
FROM ruling AS r
LEFT JOIN cards AS k USING (ruling_id)
LEFT JOIN translations AS t USING (ruling_id)
LEFT JOIN seen AS s USING (ruling_id)
ORDER BY r.ruling_id ASC;
