-- The views an export's rows come from: for each sync query and source, the newest sync run the
-- warehouse loaded that fetched it. A load builds the warehouse from these views (README, "How it
-- works"), so a run that synced fewer sources leaves the other sources' rows to the runs before it.
-- A run with no sources recorded fetched the API only. The run's own times (from its run.json).
WITH fetched AS (
    SELECT run_id, query, trim(unnest(string_split(coalesce(sources, 'api'), ','))) AS source
    FROM sync_run
    WHERE mode <> 'ingest'
), newest AS (
    SELECT query, source, max(run_id) AS run_id
    FROM fetched
    WHERE source <> ''
    GROUP BY query, source
)
SELECT n.query, n.source, r.run_id, r.mode, r.started_at, r.finished_at
FROM newest AS n
JOIN sync_run AS r USING (run_id)
ORDER BY n.query NULLS FIRST, n.source;
