-- Record the documents of a run that the warehouse has not seen before (same URL, same bytes
-- = same doc_id = already there, with the run that first fetched it).
INSERT INTO raw_document
SELECT s.*
FROM stage_raw_document AS s
WHERE s.doc_id NOT IN (SELECT doc_id FROM raw_document);
