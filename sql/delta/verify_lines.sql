-- Lines read again (parsed_line) that are not the lines the scan hashed ($table's h, with
-- $ignore removed as scan_lines.sql removes it): a file whose offsets are off (\r\n line ends).
SELECT count(*)
FROM parsed_line AS p
JOIN (SELECT ord, h FROM lines_cards WHERE $table = 'lines_cards'
      UNION ALL SELECT ord, h FROM lines_rulings WHERE $table = 'lines_rulings') AS l USING (ord)
WHERE hash(CASE WHEN $ignore IS NULL THEN p.line ELSE regexp_replace(p.line, $ignore, '', 'g') END) <> l.h;
