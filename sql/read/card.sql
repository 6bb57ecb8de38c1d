-- One card: its Oracle fields and its printings summarised. A printing's languages share its set
-- and collector number; one Scryfall has in other languages only (no English row) is listed too.
SELECT c.oracle_id, c.name, c.mana_cost, c.cmc, c.type_line, c.oracle_text, c.colors,
       (SELECT string_agg(DISTINCT p.set_code || ' ' || p.collector_number, ', ' ORDER BY p.set_code || ' ' || p.collector_number)
          FROM printing p WHERE p.oracle_id = c.oracle_id) AS printings,
       (SELECT string_agg(DISTINCT p.lang, ', ' ORDER BY p.lang) FROM printing p WHERE p.oracle_id = c.oracle_id) AS languages
FROM card c
WHERE c.oracle_id = $oracle_id;
