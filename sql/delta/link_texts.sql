-- After a delta build, with an edition of the Comprehensive Rules ingested: the texts the rules
-- links are made from, as the warehouse holds them now (old) and as it will after the load (new;
-- the load replaces the rows of the keys in scope_<table> and in n_<table>, the others stay).
-- normalize/card_terms.sql reads the cards of both.
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
