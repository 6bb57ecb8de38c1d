-- The sync queries whose cards the warehouse holds, each with its latest loaded run, newest first.
SELECT q.query, max(r.run_id) AS latest_run_id, count(DISTINCT q.oracle_id) AS cards
FROM query_card q
LEFT JOIN sync_run r ON r.query = q.query
GROUP BY q.query
ORDER BY latest_run_id DESC NULLS LAST, q.query;
