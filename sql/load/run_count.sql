-- The count of runs the warehouse has loaded: every load writes one sync_run row, and none is ever
-- deleted (pipeline/load/warehouse.py DERIVED_MARK).
SELECT count(*) FROM sync_run;
