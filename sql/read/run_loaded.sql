-- Whether the warehouse holds run $run_id (a loaded sync or ingest).
SELECT EXISTS (SELECT 1 FROM sync_run WHERE run_id = $run_id);
