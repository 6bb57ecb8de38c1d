-- How many of the runs in $runs changed rows of the warehouse (status 'ok'), rules ingests aside:
-- a run can change printings, sets or sightings without a change event.
SELECT count(*) FROM sync_run
WHERE list_contains($runs, run_id) AND status = 'ok' AND mode IS DISTINCT FROM 'ingest';
