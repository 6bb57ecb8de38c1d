-- Bring cr_edition to the state staged in stage_cr_edition: insert new rows, update changed ones,
-- delete rows the current runs no longer hold. Returns one merge_action per row touched.
MERGE INTO cr_edition AS t
USING stage_cr_edition AS s
ON t.effective_date = s.effective_date
WHEN MATCHED AND (t.doc_id, t.rules, t.glossary_terms)
     IS DISTINCT FROM (s.doc_id, s.rules, s.glossary_terms)
    THEN UPDATE
WHEN NOT MATCHED THEN INSERT
WHEN NOT MATCHED BY SOURCE THEN DELETE
RETURNING merge_action;
