-- After a full build, with an edition of the Comprehensive Rules ingested: the texts the rules
-- links are made from, as the warehouse holds them now (old) and as the build staged them (new);
-- normalize/card_terms.sql reads the cards of both. And the rulings and cards whose texts the
-- warehouse holds already (d_ruling_linked, d_card_linked): when the edition and the glossary
-- terms linked are the ones of the warehouse's links, their links are the warehouse's.
CREATE OR REPLACE TEMP VIEW d_card_text_old AS
SELECT oracle_id, type_line, oracle_text FROM card;

CREATE OR REPLACE TEMP VIEW d_card_text_new AS
SELECT oracle_id, type_line, oracle_text FROM n_card;

CREATE OR REPLACE TEMP TABLE d_ruling_linked AS
SELECT n.ruling_id FROM n_ruling AS n JOIN ruling AS w ON w.ruling_id = n.ruling_id AND w.text = n.text;

CREATE OR REPLACE TEMP TABLE d_card_linked AS
SELECT n.oracle_id FROM n_card AS n
JOIN card AS w ON w.oracle_id = n.oracle_id
    AND w.type_line IS NOT DISTINCT FROM n.type_line AND w.oracle_text IS NOT DISTINCT FROM n.oracle_text;

-- When the build keeps those links: the rulings and cards to link, and the cards whose links it
-- keeps but whose wiki_quote links it makes again.
CREATE OR REPLACE TEMP VIEW d_ruling_unlinked AS
SELECT * FROM n_ruling ANTI JOIN d_ruling_linked USING (ruling_id);

CREATE OR REPLACE TEMP VIEW d_card_unlinked AS
SELECT * FROM n_card ANTI JOIN d_card_linked USING (oracle_id);

CREATE OR REPLACE TEMP VIEW d_card_kept AS
SELECT * FROM n_card SEMI JOIN d_card_linked USING (oracle_id);
