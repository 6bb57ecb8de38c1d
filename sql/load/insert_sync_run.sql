-- One row per loaded run, written in the same transaction as the data it brought.
INSERT INTO sync_run (run_id, started_at, finished_at, status, mode, query, sources, replay_of,
                      requests, bytes, documents, inserted, updated, removed, loaded_at, duration_s)
VALUES ($run_id, $started_at, $finished_at, $status, $mode, $query, $sources, $replay_of,
        $requests, $bytes, $documents, $inserted, $updated, $removed, $loaded_at,
        round(epoch(CAST($loaded_at AS TIMESTAMP)) - epoch(CAST($started_at AS TIMESTAMP)), 3));
