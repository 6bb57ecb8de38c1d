-- Bring ruling_rule to the state staged in stage_ruling_rule: insert new rows, update changed ones,
-- delete rows the current runs no longer hold. Returns one merge_action per row touched.
MERGE INTO ruling_rule AS t
USING stage_ruling_rule AS s
ON t.ruling_id = s.ruling_id
   AND t.rule_number = s.rule_number
   AND t.method = s.method
WHEN MATCHED AND (t.effective_date, t.evidence)
     IS DISTINCT FROM (s.effective_date, s.evidence)
    THEN UPDATE
WHEN NOT MATCHED THEN INSERT
WHEN NOT MATCHED BY SOURCE THEN DELETE
RETURNING merge_action;
