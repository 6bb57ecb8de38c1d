-- One card: its Oracle fields and its printings summarised. A printing's languages share its set
-- and collector number; one Scryfall has in other languages only (no English row) is listed too.
-- Collector numbers in a set go by their leading number (9 before 10, 9a before 10), then as text.
SELECT c.oracle_id, c.name, c.mana_cost, c.cmc, c.type_line, c.oracle_text, c.colors,
       (SELECT string_agg(n.set_code || ' ' || n.collector_number, ', '
                          ORDER BY n.set_code, TRY_CAST(regexp_extract(n.collector_number, '^[0-9]+') AS BIGINT) NULLS LAST,
                                   n.collector_number)
          FROM (SELECT DISTINCT p.set_code, p.collector_number FROM printing p WHERE p.oracle_id = c.oracle_id) n
       ) AS printings,
       (SELECT string_agg(DISTINCT p.lang, ', ' ORDER BY p.lang) FROM printing p WHERE p.oracle_id = c.oracle_id) AS languages
FROM card c
WHERE c.oracle_id = $oracle_id;
