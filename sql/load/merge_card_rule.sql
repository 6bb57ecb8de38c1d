-- Bring card_rule to the state staged in stage_card_rule: insert new rows, update changed ones,
-- delete rows the current runs no longer hold. Returns one merge_action per row touched.
MERGE INTO card_rule AS t
USING stage_card_rule AS s
ON t.oracle_id = s.oracle_id
   AND t.rule_number = s.rule_number
   AND t.method = s.method
WHEN MATCHED AND (t.effective_date, t.evidence)
     IS DISTINCT FROM (s.effective_date, s.evidence)
    THEN UPDATE
WHEN NOT MATCHED THEN INSERT
WHEN NOT MATCHED BY SOURCE THEN DELETE
RETURNING merge_action;
