-- The raw_document rows whose file is in a run folder that data/raw/ no longer holds as a complete
-- run (a path starts with its run's folder). $kept_runs: the complete runs of data/raw/. A join
-- (one pass over the rows and one over the runs), not list_contains, which searches the list for
-- each row: run by every load.
SELECT doc_id, origin
FROM raw_document
WHERE split_part(path, '/', 1) NOT IN (SELECT unnest($kept_runs::VARCHAR[]));
