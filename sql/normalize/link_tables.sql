-- The link tables of a SQL build with an edition ingested, empty, in the warehouse's column
-- types: pipeline/rules_tables.py fills them (normalize/kept_links.sql, then the links it makes).
CREATE OR REPLACE TEMP TABLE n_ruling_rule AS
SELECT ruling_id, rule_number, effective_date, method, evidence FROM ruling_rule LIMIT 0;

CREATE OR REPLACE TEMP TABLE n_card_rule AS
SELECT oracle_id, rule_number, effective_date, method, evidence FROM card_rule LIMIT 0;
