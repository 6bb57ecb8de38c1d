-- Point the raw_document rows of the run's documents whose file is in a run folder data/raw/ no
-- longer holds as a complete run (deleted by hand) at this run's copy of the same bytes, so the
-- file can be opened again. $kept_runs: the complete runs of data/raw/.
UPDATE raw_document AS d
SET path = s.path
FROM stage_raw_document AS s
WHERE d.doc_id = s.doc_id AND d.path <> s.path AND NOT list_contains($kept_runs, split_part(d.path, '/', 1));
