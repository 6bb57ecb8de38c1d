-- The lines read again, as written to $file (pipeline/normalize/lines.py copy_lines: line i of
-- $file is line_place's i, without the comma that separates array elements where it had one),
-- against the lines the scan hashed ({lines}: lines_cards or lines_rulings, filled in by
-- pipeline/normalize/delta.py; h, hashed as scan_lines.sql hashes a line, with the fields
-- $ignore, $cut, $flat and $between name left out): how many were read, and how many differ (a
-- file whose offsets are off: \r\n line ends). A line is its indexed line with or without the
-- comma: the fields left out never take in a comma at the end of a line, so it is the end of
-- the text hashed (head), or of the text after the fields (tail) where they were split off.
WITH copied AS (
    SELECT row_number() OVER () - 1 AS i, line
    FROM read_csv($file, columns = {'line': 'VARCHAR'}, header = false, delim = chr(1), quote = '', escape = '',
                  auto_detect = false, strict_mode = false, max_line_size = 8388608, buffer_size = 16777216)
), texts AS (
    SELECT p.ord,
        CASE WHEN $ignore IS NULL THEN c.line
             WHEN c.split_off THEN c.parts[1]
             WHEN len(c.parts) = 2 THEN c.parts[1] || regexp_replace($cut || c.parts[2], $ignore, '', 'g')
             ELSE regexp_replace(c.line, $ignore, '', 'g') END AS head,
        CASE WHEN c.split_off THEN substr(c.run[2], c.after_flat + 1) END AS tail
    FROM (SELECT i, line, parts, run, after_flat,
                 coalesce(len(run) = 2 AND after_flat > 0 AND NOT contains(replace(run[1], $between, ''), '"'),
                          false) AS split_off
          FROM (SELECT i, line, parts, run, strpos(run[2], '}') AS after_flat
                FROM (SELECT i, line, parts, CASE WHEN len(parts) = 2 THEN string_split(parts[2], $flat) END AS run
                      FROM (SELECT i, line, CASE WHEN $ignore IS NOT NULL THEN string_split(line, $cut) END AS parts
                            FROM copied)))) AS c
    JOIN line_place AS p USING (i)
), hashed AS (
    SELECT ord,
        CASE WHEN tail IS NULL THEN hash(head) ELSE hash(head, tail) END AS h,
        CASE WHEN tail IS NULL THEN hash(head || ',') ELSE hash(head, tail || ',') END AS h_comma
    FROM texts
)
SELECT (SELECT count(*) FROM copied) AS read,
       (SELECT count(*)
        FROM hashed AS t
        JOIN (SELECT ord, h FROM {lines} SEMI JOIN line_place USING (ord)) AS l USING (ord)
        WHERE t.h IS DISTINCT FROM l.h AND t.h_comma IS DISTINCT FROM l.h) AS wrong;
