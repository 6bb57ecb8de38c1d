-- The links a full build keeps from the warehouse (normalize/link_texts.sql says whose), added
-- to n_ruling_rule and n_card_rule (normalize/link_tables.sql). A card's wiki_quote links are
-- made again for every card: they come from the wiki page, not from the card's text. The
-- warehouse's links are all of one edition, the newest it holds (every load links to it).
INSERT INTO n_ruling_rule
SELECT ruling_id, rule_number, effective_date, method, evidence
FROM ruling_rule SEMI JOIN d_ruling_linked USING (ruling_id);

INSERT INTO n_card_rule
SELECT oracle_id, rule_number, effective_date, method, evidence
FROM card_rule SEMI JOIN d_card_linked USING (oracle_id)
WHERE method <> 'wiki_quote';
