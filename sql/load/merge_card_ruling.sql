-- Bring card_ruling to the state staged in stage_card_ruling: insert new rows, update changed ones,
-- delete rows the current runs no longer hold. Returns one merge_action per row touched.
MERGE INTO card_ruling AS t
USING stage_card_ruling AS s
ON t.oracle_id = s.oracle_id
   AND t.ruling_id = s.ruling_id
WHEN MATCHED AND (t.position)
     IS DISTINCT FROM (s.position)
    THEN UPDATE
WHEN NOT MATCHED THEN INSERT
WHEN NOT MATCHED BY SOURCE THEN DELETE
RETURNING merge_action;
