-- Whether the file holds casefile's tables: sync_run, the one every load writes.
SELECT count(*) > 0 FROM duckdb_tables()
WHERE database_name = current_database() AND schema_name = 'main' AND table_name = 'sync_run';
