-- Whether the warehouse holds the table $name: sync_run, which every load writes, for whether the
-- file is a warehouse at all; another, for one a writer of an older version did not make.
SELECT count(*) > 0 FROM duckdb_tables()
WHERE database_name = current_database() AND schema_name = 'main' AND table_name = $name;
