-- The object index of a full build's rulings file: each line (lines_rulings) with what the build
-- read from it (ruling_object): its card (hash(oracle_id)), its place among the card's rulings,
-- and whether it was refused. Written to the cache (pipeline/normalize/delta.py index_full).
SELECT l.h, l.n, hash(r.oracle_id) AS oracle_h, r.position, coalesce(r.skip_reason IS NOT NULL, true) AS refused
FROM lines_rulings AS l
LEFT JOIN (SELECT ord, oracle_id, position, skip_reason FROM ruling_object WHERE file_seq = $rulings_seq) AS r USING (ord)
