-- The text of the object lines listed in line_place (ord), one scan of $file: for a gzipped
-- bulk file, where a line cannot be reached by seeking. Numbered as scan_lines.sql numbers them.
SELECT ord, line
FROM (
    SELECT row_number() OVER (ORDER BY rn) - 1 AS ord, line
    FROM (SELECT row_number() OVER () AS rn, line
          FROM read_csv($file, columns = {'line': 'VARCHAR'}, header = false, delim = chr(1), quote = '', escape = '',
                        auto_detect = false, strict_mode = false, max_line_size = 8388608, buffer_size = 16777216))
    WHERE trim(line) NOT IN ('[', ']', '')
)
SEMI JOIN line_place USING (ord)
ORDER BY ord;
