-- The rules links a delta build answers for, every column (see scopes.sql): those of the rulings
-- and cards whose rows it replaces (scope_<table> and the rows it staged). The other links stand:
-- their texts, the edition and the glossary terms linked are the ones they were made with.
CREATE OR REPLACE TEMP TABLE scope_ruling_rule AS
SELECT * FROM ruling_rule
WHERE ruling_id IN (SELECT ruling_id FROM scope_ruling UNION SELECT ruling_id FROM n_ruling);

CREATE OR REPLACE TEMP TABLE scope_card_rule AS
SELECT * FROM card_rule
WHERE oracle_id IN (SELECT oracle_id FROM scope_card UNION SELECT oracle_id FROM n_card);
