-- The run an export comes from: the latest sync run that loaded cards and rulings (run ids sort by
-- time). A rules ingest (mode 'ingest') loads the Comprehensive Rules only, which the dataset does
-- not hold, so it is never the run named. The run's own times only (from its run.json): not
-- loaded_at, which a rebuild of the same runs sets anew, so that a rebuilt warehouse exports the
-- same bytes.
SELECT run_id, mode, query, sources, started_at, finished_at
FROM sync_run
WHERE mode <> 'ingest'
ORDER BY run_id DESC
LIMIT 1;
