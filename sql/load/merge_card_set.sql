-- Bring card_set to the state staged in stage_card_set: insert new rows, update changed ones,
-- delete rows the current runs no longer hold. Returns one merge_action per row touched.
MERGE INTO card_set AS t
USING stage_card_set AS s
ON t.set_code = s.set_code
WHEN MATCHED AND (t.name, t.set_type, t.released_at, t.card_count, t.digital)
     IS DISTINCT FROM (s.name, s.set_type, s.released_at, s.card_count, s.digital)
    THEN UPDATE
WHEN NOT MATCHED THEN INSERT
WHEN NOT MATCHED BY SOURCE THEN DELETE
RETURNING merge_action;
