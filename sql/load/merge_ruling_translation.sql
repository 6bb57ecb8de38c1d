-- Bring ruling_translation to the state staged in stage_ruling_translation: insert new rows, update changed ones,
-- delete rows the current runs no longer hold. Returns one merge_action per row touched, with the row's ruling_id:
-- the rulings whose translation keys the load derives again (load/ruling_translation_key.sql).
MERGE INTO ruling_translation AS t
USING stage_ruling_translation AS s
ON t.ruling_id = s.ruling_id
   AND t.lang = s.lang
   AND t.origin = s.origin
WHEN MATCHED AND (t.text, t.machine_translated)
     IS DISTINCT FROM (s.text, s.machine_translated)
    THEN UPDATE
WHEN NOT MATCHED THEN INSERT
WHEN NOT MATCHED BY SOURCE THEN DELETE
RETURNING merge_action, ruling_id;
