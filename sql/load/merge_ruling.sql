-- Bring ruling to the state staged in stage_ruling: insert new rows, update changed ones,
-- delete rows the current runs no longer hold. Returns one merge_action per row touched.
MERGE INTO ruling AS t
USING stage_ruling AS s
ON t.ruling_id = s.ruling_id
WHEN MATCHED AND (t.source, t.published_at, t.text, t.match_key)
     IS DISTINCT FROM (s.source, s.published_at, s.text, s.match_key)
    THEN UPDATE
WHEN NOT MATCHED THEN INSERT
WHEN NOT MATCHED BY SOURCE THEN DELETE
RETURNING merge_action;
