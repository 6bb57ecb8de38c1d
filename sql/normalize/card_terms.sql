-- What pipeline/rules_tables.py's terms_of reads of the cards (sql_rules_tables runs this),
-- distinct, in the warehouse now (d_card_text_old) and after the load (d_card_text_new): type
-- lines, and the text before the first " — " of each line of rules text that has one. The views
-- are made by delta/link_texts.sql or normalize/link_texts.sql.
SELECT 'old' AS state, 'type_line' AS part, type_line AS value FROM (SELECT DISTINCT type_line FROM d_card_text_old)
UNION ALL
SELECT 'new', 'type_line', type_line FROM (SELECT DISTINCT type_line FROM d_card_text_new)
UNION ALL
SELECT state, 'head', split_part(line, ' — ', 1)
FROM (SELECT DISTINCT 'old' AS state, unnest(string_split(oracle_text, chr(10))) AS line FROM d_card_text_old
      UNION
      SELECT DISTINCT 'new', unnest(string_split(oracle_text, chr(10))) FROM d_card_text_new)
WHERE contains(line, ' — ');
