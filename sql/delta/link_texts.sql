-- After a delta build, with an edition of the Comprehensive Rules ingested: the texts the rules
-- links are made from, as the warehouse holds them now (old) and as it will after the load (new).
-- The load replaces the rows of the keys in scope_<table> and in n_<table>; the others stay.
CREATE OR REPLACE TEMP VIEW d_card_text_old AS
SELECT oracle_id, type_line, oracle_text FROM card;

CREATE OR REPLACE TEMP VIEW d_card_text_new AS
SELECT oracle_id, type_line, oracle_text FROM card
ANTI JOIN (SELECT oracle_id FROM scope_card UNION SELECT oracle_id FROM n_card) USING (oracle_id)
UNION ALL
SELECT oracle_id, type_line, oracle_text FROM n_card;

CREATE OR REPLACE TEMP VIEW d_ruling_text_new AS
SELECT ruling_id, source, text FROM ruling
ANTI JOIN (SELECT ruling_id FROM scope_ruling UNION SELECT ruling_id FROM n_ruling) USING (ruling_id)
UNION ALL
SELECT ruling_id, source, text FROM n_ruling;

-- What pipeline/build.py's relevant_terms reads of the cards, distinct, for both states: type
-- lines, and the text before the first " — " of each line of rules text that has one.
SELECT 'old' AS state, 'type_line' AS part, type_line AS value FROM (SELECT DISTINCT type_line FROM d_card_text_old)
UNION ALL
SELECT 'new', 'type_line', type_line FROM (SELECT DISTINCT type_line FROM d_card_text_new)
UNION ALL
SELECT state, 'head', split_part(line, ' — ', 1)
FROM (SELECT DISTINCT 'old' AS state, unnest(string_split(oracle_text, chr(10))) AS line FROM d_card_text_old
      UNION
      SELECT DISTINCT 'new', unnest(string_split(oracle_text, chr(10))) FROM d_card_text_new)
WHERE contains(line, ' — ');
