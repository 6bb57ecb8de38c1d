-- One row per loaded run, written in the same transaction as the data it brought. duration_s is
-- NULL where $timed is false: a rebuild loads the run long after it started, and does not time it.
INSERT INTO sync_run (run_id, started_at, finished_at, status, mode, query, sources, replay_of,
                      requests, bytes, documents, inserted, updated, removed, loaded_at, duration_s)
VALUES ($run_id, $started_at, $finished_at, $status, $mode, $query, $sources, $replay_of,
        $requests, $bytes, $documents, $inserted, $updated, $removed, $loaded_at,
        CASE WHEN $timed THEN round(epoch(CAST($loaded_at AS TIMESTAMP)) - epoch(CAST($started_at AS TIMESTAMP)), 3) END);
