-- Whether the warehouse holds the table $name (one a writer of an older version did not make).
SELECT count(*) > 0 FROM duckdb_tables()
WHERE database_name = current_database() AND schema_name = 'main' AND table_name = $name;
