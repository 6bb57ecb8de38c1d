-- Each distinct (source, date, text) of {sightings} (n_sighting, or a part of it: filled in by
-- pipeline/normalize/duck.py variants) once, with the text features reconcile needs: a ruling
-- shared by many cards is worked on once, not once per card. A "plain" text gets them from the macros
-- of 00_text.sql (spelled out here); the others (plain false: key, canon and has_symbols NULL)
-- get them from the Python functions, in variant_python.sql, which pipeline/normalize/duck.py
-- runs only when there are such texts.
CREATE OR REPLACE TEMP TABLE n_variant AS
-- cf_fold and cf_hyphens change quotes and dashes only, so a text and its folded copy need the
-- same squashing of whitespace: the test is made once.
WITH distinct_variant AS (
    SELECT source, date_as_seen, t, cf_hyphens(cf_fold(t)) AS folded, cf_unspaced(t) AS unspaced
    FROM (SELECT DISTINCT source, date_as_seen, text_as_seen AS t FROM {sightings})
), classed AS (
    SELECT *, cf_ascii(folded) AS plain FROM distinct_variant  -- = cf_plain(t)
), featured AS (
    SELECT source, date_as_seen, t AS text_as_seen,
        CASE WHEN NOT plain THEN NULL WHEN unspaced THEN lower(cf_squash(folded)) ELSE lower(folded) END AS key,
        CASE WHEN NOT plain THEN NULL WHEN unspaced THEN cf_squash(t) ELSE t END AS canon,
        CASE WHEN plain THEN cf_symbols_plain(t) END AS has_symbols,
        plain
    FROM classed
)
-- typographic_score of the canonical copy: whitespace changes nothing to its symbols
SELECT *, (CASE WHEN has_symbols THEN 2 ELSE 0 END)
          + (CASE WHEN contains(canon, '’') OR contains(canon, '“') OR contains(canon, '”') THEN 1 ELSE 0 END) AS score
FROM featured;
