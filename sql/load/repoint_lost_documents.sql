-- Point the raw_document rows whose file is in a run folder data/raw/ no longer holds as a complete
-- run (deleted by hand) at the oldest complete run's copy of the same document (URL and bytes), the
-- copy a rebuild names. stage_moves: doc_id, path (lost.lost_document_copies: the oldest complete
-- run up to the one loading that holds it). $kept_runs: the complete runs of data/raw/.
UPDATE raw_document AS d
SET path = m.path
FROM stage_moves AS m
WHERE d.doc_id = m.doc_id AND d.path <> m.path AND NOT list_contains($kept_runs, split_part(d.path, '/', 1));
