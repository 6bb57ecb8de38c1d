-- Point the sightings of a bulk view that name a rulings file of a run being deleted, which no kept
-- run holds, at the rulings file of the oldest kept run of that view (casefile prune, before it
-- deletes runs): the file a rebuild from the kept runs first reads them from. stage_sighting_moves:
-- doc_id (the deleted file), to_doc_id (the kept one), which the warehouse has loaded.
UPDATE ruling_sighting AS s
SET doc_id = m.to_doc_id
FROM stage_sighting_moves AS m
WHERE s.doc_id = m.doc_id AND m.to_doc_id IN (SELECT doc_id FROM raw_document);
