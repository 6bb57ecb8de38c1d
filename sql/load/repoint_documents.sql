-- Point raw_document rows at another copy of the same body (casefile prune, before it deletes the
-- run that fetched them first). stage_moves: doc_id, old_run_id (the run being deleted), path (a
-- kept run's file of the same document). A row that names another run is left alone.
UPDATE raw_document AS d
SET path = m.path
FROM stage_moves AS m
WHERE d.doc_id = m.doc_id AND d.run_id = m.old_run_id AND d.path <> m.path;
