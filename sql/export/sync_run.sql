-- The run an export comes from: the latest loaded sync run (run ids sort by time).
SELECT run_id, mode, query, sources, started_at, finished_at, loaded_at
FROM sync_run
ORDER BY run_id DESC
LIMIT 1;
