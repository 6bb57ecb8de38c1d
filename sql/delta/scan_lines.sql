-- The object lines of a bulk file ($file: a JSON array written one element per line, or JSON
-- lines; gzipped or not), as table {scan} (filled in by pipeline/normalize/lines.py, with
-- {scan_table}: TEMP TABLE and a name, or TABLE and a name in an attached in-memory database):
--   ord  the object's place in the file, as read_json numbers it (0, 1, ...)
--   h    a hash of the line's text (the comma that separates array elements included: the last
--        element of an array has none, so a line that stops being the last one reads as changed),
--        without the fields casefile does not read that change every day (pipeline/normalize/
--        delta.py VOLATILE_CARD; all NULL: none). Where the line holds $cut (the key that opens
--        their run) exactly once, and after it $flat (the key of the run's last field, an object of
--        plain values) exactly once, with only values and $between keys between them (no quote
--        left once those keys are out), the hash is of the text before $cut and of the text after
--        the first } after $flat, side by side: the run left out by splitting the line. Else the
--        regular expression $ignore takes the fields out, of the text from $cut on where the line
--        holds $cut once (the text before it kept as it is), else of the whole line
--        (pipeline/normalize/lines.py Volatile). verify_lines.sql hashes a line the same way.
--   n    how many identical lines come before it (0 for most): (h, n) names a line in a file
--   off, len  where the line's bytes are (meaningful in a plain file, not in a gzipped one)
--   ok   the line looks like one whole object: it starts with { and ends with } (comma aside)
-- The array's brackets and blank lines are not objects. The text is dropped as soon as it is
-- hashed: the numbering works on small rows. A file with \r\n line ends gets offsets that miss
-- the \r: verify_lines.sql (run by pipeline/normalize/delta.py _stage_lines_read) checks each line
-- read again against its hash, and a line that differs makes the build a full one, which reads
-- the file whole.
--
-- The first statement hashes the lines on every thread into a table; a table made from a single
-- reader keeps the file's order (DuckDB's order preservation), so a line's rowid is its place in
-- the file. Numbering the lines while reading them (row_number() OVER ()) would read on one
-- thread only. The second gives each line the bytes and the objects before it with running sums
-- in the table's order (a streaming window: one pass, no sort); the next ones number the
-- repeated lines, which are few (a sort of every line by its hash took longer than the rest):
-- found first, so that a file without any costs an UPDATE that joins no row.
-- The reader takes lines of up to 8 MB (max_line_size), which makes DuckDB's read buffer larger
-- unless buffer_size is set: a scan of the benchmark's 4x card file then needed 250-300 MB of
-- the memory limit, and two scans beside a full build's read of the documents sometimes went
-- over it (bench/FINDINGS.md). With a 16 MB buffer a scan fits in 100 MB, no slower.
CREATE OR REPLACE TEMP TABLE line_hashed AS
SELECT strlen(line) AS len,
    CASE WHEN $ignore IS NULL THEN hash(line)
         WHEN len(run) = 2 AND after_flat > 0 AND NOT contains(replace(run[1], $between, ''), '"')
             THEN hash(parts[1], substr(run[2], after_flat + 1))
         WHEN len(parts) = 2 THEN hash(parts[1] || regexp_replace($cut || parts[2], $ignore, '', 'g'))
         ELSE hash(regexp_replace(line, $ignore, '', 'g')) END AS h,
    CASE WHEN strlen(line) > 2 THEN false ELSE trim(line) IN ('[', ']', '') END AS frame,
    starts_with(line, '{') AND (suffix(line, '}') OR suffix(line, '},')) AS ok
FROM (SELECT line, parts, run, strpos(run[2], '}') AS after_flat
      FROM (SELECT line, parts, CASE WHEN len(parts) = 2 THEN string_split(parts[2], $flat) END AS run
            FROM (SELECT line, CASE WHEN $ignore IS NOT NULL THEN string_split(line, $cut) END AS parts
                  FROM read_csv($file, columns = {'line': 'VARCHAR'}, header = false, delim = chr(1), quote = '',
                                escape = '', auto_detect = false, strict_mode = false, max_line_size = 8388608,
                                buffer_size = 16777216))));

CREATE OR REPLACE {scan_table} AS
WITH placed AS (
    SELECT h, len, ok, frame,
        sum(len + 1) OVER (ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) - (len + 1) AS off,
        sum(CASE WHEN frame THEN 0 ELSE 1 END) OVER (ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) - 1 AS ord
    FROM line_hashed
)
SELECT CAST(ord AS BIGINT) AS ord, h, CAST(0 AS INTEGER) AS n, CAST(off AS BIGINT) AS off, CAST(len AS INTEGER) AS len, ok
FROM placed WHERE NOT frame;

CREATE OR REPLACE TEMP TABLE line_repeated AS
SELECT ord, CAST(row_number() OVER (PARTITION BY h ORDER BY ord) - 1 AS INTEGER) AS n
FROM {scan} WHERE h IN (SELECT h FROM {scan} GROUP BY h HAVING count(*) > 1);

UPDATE {scan} AS s SET n = r.n FROM line_repeated AS r WHERE s.ord = r.ord AND r.n > 0;

DROP TABLE line_hashed;
DROP TABLE line_repeated;
