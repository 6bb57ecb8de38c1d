-- Bring cr_glossary to the state staged in stage_cr_glossary: insert new rows, update changed ones,
-- delete rows the current runs no longer hold. Returns one merge_action per row touched.
MERGE INTO cr_glossary AS t
USING stage_cr_glossary AS s
ON t.effective_date = s.effective_date
   AND t.term = s.term
WHEN MATCHED AND (t.text)
     IS DISTINCT FROM (s.text)
    THEN UPDATE
WHEN NOT MATCHED THEN INSERT
WHEN NOT MATCHED BY SOURCE THEN DELETE
RETURNING merge_action;
