-- Every run the warehouse has loaded, with what it fetched: the query and the sources (an
-- ingest of the rules has no query and the source rules).
SELECT run_id, query, sources FROM sync_run ORDER BY run_id;
