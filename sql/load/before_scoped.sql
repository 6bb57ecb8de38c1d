-- The rows of {table} a delta load answers for, as they are before it (apply_before_{table}):
-- those the build read (scope_{table}), and the rows of any key it staged that they do not
-- hold, so that a staged key is always compared with the row the warehouse has for it. The
-- warehouse is looked at again for the staged keys outside scope_{table} (apply_outside_{table}:
-- new keys, or a key whose row the build did not read) only when there are any:
-- pipeline/load/warehouse.py runs one of the two statements that make apply_outside_rows_{table}.
-- apply_before_{table} is a view: the build's rows are not copied.
-- Filled in by pipeline/load/warehouse.py with identifiers only.
CREATE OR REPLACE TEMP TABLE apply_outside_{table} AS
SELECT {keys} FROM stage_{table} ANTI JOIN scope_{table} USING ({keys});

SELECT count(*) FROM apply_outside_{table};

-- there are staged keys outside the scope
CREATE OR REPLACE TEMP TABLE apply_outside_rows_{table} AS
SELECT * FROM {table} SEMI JOIN apply_outside_{table} USING ({keys});

-- there are none
CREATE OR REPLACE TEMP TABLE apply_outside_rows_{table} AS SELECT * FROM scope_{table} LIMIT 0;

CREATE OR REPLACE TEMP VIEW apply_before_{table} AS
SELECT * FROM scope_{table} UNION ALL SELECT * FROM apply_outside_rows_{table};
