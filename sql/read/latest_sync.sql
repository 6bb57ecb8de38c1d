-- The latest sync: the latest run that is not a rules ingest (an ingest records no change events).
SELECT max(run_id) FROM sync_run WHERE mode IS DISTINCT FROM 'ingest';
