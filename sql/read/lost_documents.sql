-- The raw_document rows whose file is in a run folder that data/raw/ no longer holds as a complete
-- run (a path starts with its run's folder). $kept_runs: the complete runs of data/raw/.
SELECT doc_id, origin
FROM raw_document
WHERE NOT list_contains($kept_runs, split_part(path, '/', 1));
