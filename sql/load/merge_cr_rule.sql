-- Bring cr_rule to the state staged in stage_cr_rule: insert new rows, update changed ones,
-- delete rows the current runs no longer hold. Returns one merge_action per row touched.
MERGE INTO cr_rule AS t
USING stage_cr_rule AS s
ON t.effective_date = s.effective_date
   AND t.number = s.number
WHEN MATCHED AND (t.parent, t.title, t.text, t.position)
     IS DISTINCT FROM (s.parent, s.title, s.text, s.position)
    THEN UPDATE
WHEN NOT MATCHED THEN INSERT
WHEN NOT MATCHED BY SOURCE THEN DELETE
RETURNING merge_action;
