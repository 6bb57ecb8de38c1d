-- The ruling keys of a build's rulings (n_ruling, sql/normalize/60_reconcile.sql), as the view
-- d_ruling_key: the rulings whose match key is not the symbol-free key of their partition, with
-- that key. A ruling's partition key is its match key's symbol-free key, which differs from it
-- only where the match key holds a symbol or a space before punctuation (the cheap test first).
-- A full build saves them to the cache beside the object index (pipeline/normalize/delta.py
-- index_ruling_keys); a delta build adds them to the keys it keeps (new_index.sql).
CREATE OR REPLACE TEMP VIEW d_ruling_key AS
SELECT ruling_id, source, CAST(published_at AS VARCHAR) AS published_at, cf_symbol_free_key(match_key) AS symbol_free_key
FROM n_ruling
WHERE (contains(match_key, '{') OR regexp_matches(match_key, ' [.,;:!?)\]]'))
  AND cf_symbol_free_key(match_key) <> match_key;
