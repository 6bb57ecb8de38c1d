-- The object index of a full build's card file: each line (lines_cards) joined by its place in
-- the file to what the build read from its object (card_object through n_object), with cards
-- named by hash(oracle_id); a reversible card's line has a row per Oracle card. Run before the
-- staged objects are dropped; written to the cache (pipeline/normalize/delta.py index_full).
SELECT l.h, l.n, hash(unnest(CASE WHEN o.skip_reason IS NULL THEN o.oracle_ids ELSE [NULL] END)) AS oracle_h,
       true AS kept, o.skip_reason IS NOT NULL AS refused
FROM lines_cards AS l
JOIN (SELECT ord, oracle_ids, skip_reason FROM n_object WHERE file_seq = $cards_seq) AS o USING (ord)
UNION ALL
SELECT l.h, l.n, NULL, false, false
FROM lines_cards AS l
ANTI JOIN (SELECT ord FROM card_object WHERE file_seq = $cards_seq) AS o USING (ord)
