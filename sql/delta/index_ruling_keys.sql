-- The ruling keys of a build's view (sql/normalize/60_reconcile.sql n_ruling): the rulings whose
-- match key is not the symbol-free key of their partition (a key that holds a symbol or a space
-- before punctuation), with that key. Every other ruling's match key is its partition's key.
-- Written to the cache beside the object index (pipeline/normalize/delta.py index_ruling_keys).
SELECT ruling_id, source, CAST(published_at AS VARCHAR) AS published_at, symbol_free_key
FROM n_ruling
WHERE symbol_free_key IS DISTINCT FROM match_key
