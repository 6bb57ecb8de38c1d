-- The runs the warehouse has loaded.
SELECT run_id FROM sync_run;
