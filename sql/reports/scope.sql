-- The runs a report covers: every query the warehouse holds, with its latest loaded run.
-- The latest run of all comes first (run ids are UTC timestamps: they sort by time).
SELECT query, max(run_id) AS latest_run_id, count(*) AS runs
FROM sync_run
GROUP BY query
ORDER BY latest_run_id DESC;
