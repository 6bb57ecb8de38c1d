-- Point the sightings of a bulk view that name a rulings file of a run being deleted, which no kept
-- run of its query holds, at the rulings file of the oldest kept run of that view (casefile prune,
-- before it deletes runs): the file a rebuild from the kept runs first reads them from.
-- stage_sighting_moves: doc_id (the deleted file), to_doc_id (the kept one), which the warehouse
-- has loaded, and place (the view's, build.bulk_rulings_place): only the sightings of that view
-- move, those whose id is made from the place (build.sighting_id_for); another query's view may
-- keep the same file.
UPDATE ruling_sighting AS s
SET doc_id = m.to_doc_id
FROM stage_sighting_moves AS m
WHERE s.doc_id = m.doc_id AND m.to_doc_id IN (SELECT doc_id FROM raw_document)
  AND s.sighting_id = 's' || left(sha256(m.place || chr(31) || coalesce(s.oracle_id, '') || chr(31)
                                         || CAST(s.position AS VARCHAR) || chr(31) || s.lang), 15);
