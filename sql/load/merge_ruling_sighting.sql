-- Bring ruling_sighting to the state staged in stage_ruling_sighting: insert new rows, update changed ones,
-- delete rows the current runs no longer hold. Returns one merge_action per row touched.
-- doc_id alone does not make a change: a sighting keeps the document it was first read from in its
-- present form (a bulk rulings file shows most sightings again, unchanged, the next day).
MERGE INTO ruling_sighting AS t
USING stage_ruling_sighting AS s
ON t.sighting_id = s.sighting_id
WHEN MATCHED AND (t.ruling_id, t.origin, t.oracle_id, t.position, t.lang, t.text_as_seen, t.date_as_seen, t.source_as_seen, t.flags)
     IS DISTINCT FROM (s.ruling_id, s.origin, s.oracle_id, s.position, s.lang, s.text_as_seen, s.date_as_seen, s.source_as_seen, s.flags)
    THEN UPDATE
WHEN NOT MATCHED THEN INSERT
WHEN NOT MATCHED BY SOURCE THEN DELETE
RETURNING merge_action;
