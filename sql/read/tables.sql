-- The warehouse's tables, by name: `casefile doctor` reads each whole.
SELECT table_name FROM duckdb_tables()
WHERE database_name = current_database() AND schema_name = 'main'
ORDER BY table_name;
