-- Loaded runs after $since_run (exclusive), or started on or after $since_date, oldest first.
SELECT run_id FROM sync_run
WHERE ($since_run IS NULL OR run_id > $since_run)
  AND ($since_date IS NULL OR started_at >= CAST($since_date AS TIMESTAMP))
ORDER BY run_id;
