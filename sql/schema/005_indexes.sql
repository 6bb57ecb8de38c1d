-- No indexes: DuckDB joins by hashing, and it writes an ART index whole at every checkpoint
-- (duckdb/duckdb#24848), so an index costs every sync in proportion to its table. The one that
-- served `casefile search` (the cards of the rulings it shows, card_ruling by ruling_id) saved
-- it 2 ms at 70,000 rulings and cost an incremental sync 59 ms (README "Performance"); a
-- warehouse made by an older casefile loses it at its next load.
DROP INDEX IF EXISTS card_ruling_by_ruling;
