-- Bring {table} to the staged state for the keys a delta build answers for (scope_{table}: the
-- warehouse rows of those keys, read by the build, sql/delta/scopes.sql) and the keys it staged:
-- insert new rows, replace changed ones, delete the scoped rows no longer staged; the same
-- counts as the table's MERGE (sql/load/merge_{table}.sql), with the same columns compared. Rows
-- outside these keys are neither read nor written.
-- Filled in by pipeline/load/warehouse.py with identifiers only (table, keys, compared columns).
-- apply_before_{table} (before_scoped.sql: the rows of those keys before) and apply_action_{table}
-- (what was done to each key) stay until the end of the load: the checks of a delta load
-- (sql/checks/delta/) look at the rows written and at those that pointed at rows deleted.
CREATE OR REPLACE TEMP TABLE apply_action_{table} AS
SELECT {coalesced},
       CASE WHEN b.{key0} IS NULL THEN 'INSERT' WHEN s.{key0} IS NULL THEN 'DELETE' ELSE 'UPDATE' END AS action
FROM apply_before_{table} AS b
FULL JOIN stage_{table} AS s ON {on}
WHERE b.{key0} IS NULL OR s.{key0} IS NULL OR ({b_cols}) IS DISTINCT FROM ({s_cols});

DELETE FROM {table} AS t USING apply_action_{table} AS a WHERE {t_on_a} AND a.action <> 'INSERT';

INSERT INTO {table} BY NAME
SELECT s.* FROM stage_{table} AS s
SEMI JOIN (SELECT * FROM apply_action_{table} WHERE action <> 'DELETE') AS a USING ({keys});

SELECT action, count(*) FROM apply_action_{table} GROUP BY action;
