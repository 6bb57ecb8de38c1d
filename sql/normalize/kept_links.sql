-- The links a full build keeps from the warehouse (normalize/link_texts.sql says whose), as
-- n_ruling_rule and n_card_rule; the build adds the links it makes. A card's wiki_quote links
-- are made again for every card: they come from the wiki page, not from the card's text. The
-- warehouse's links are all of one edition, the newest it holds (every load links to it).
CREATE OR REPLACE TEMP TABLE n_ruling_rule AS
SELECT ruling_id, rule_number, effective_date, method, evidence
FROM ruling_rule SEMI JOIN d_ruling_linked USING (ruling_id);

CREATE OR REPLACE TEMP TABLE n_card_rule AS
SELECT oracle_id, rule_number, effective_date, method, evidence
FROM card_rule SEMI JOIN d_card_linked USING (oracle_id)
WHERE method <> 'wiki_quote';
