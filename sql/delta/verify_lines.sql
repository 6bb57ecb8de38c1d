-- The lines read again, as written to $file (pipeline/normalize/lines.py copy_lines: line i of
-- $file is line_place's i, without the comma that separates array elements where it had one),
-- against the lines the scan hashed ({lines}: lines_cards or lines_rulings, filled in by
-- pipeline/normalize/delta.py; h, with $ignore removed as scan_lines.sql removes it, from $cut on
-- where the line holds $cut exactly once, else from the whole line): how many
-- were read, and how many differ (a file whose offsets are off: \r\n line ends). A line is its
-- indexed line with or without the comma: $ignore cannot match a comma at the end of a line,
-- so the pattern is applied once.
WITH copied AS (
    SELECT row_number() OVER () - 1 AS i, line
    FROM read_csv($file, columns = {'line': 'VARCHAR'}, header = false, delim = chr(1), quote = '', escape = '',
                  auto_detect = false, strict_mode = false, max_line_size = 8388608)
), texts AS (
    SELECT p.ord,
        CASE WHEN $ignore IS NULL THEN c.line
             WHEN len(c.parts) = 2 THEN c.parts[1] || regexp_replace($cut || c.parts[2], $ignore, '', 'g')
             ELSE regexp_replace(c.line, $ignore, '', 'g') END AS line
    FROM (SELECT i, line, CASE WHEN $ignore IS NOT NULL THEN string_split(line, $cut) END AS parts FROM copied) AS c
    JOIN line_place AS p USING (i)
)
SELECT (SELECT count(*) FROM copied) AS read,
       (SELECT count(*)
        FROM texts AS t
        JOIN (SELECT ord, h FROM {lines} SEMI JOIN line_place USING (ord)) AS l USING (ord)
        WHERE hash(t.line) IS DISTINCT FROM l.h AND hash(t.line || ',') IS DISTINCT FROM l.h) AS wrong;
