-- The rules links (ruling_rule, card_rule): every link's key is unique, and every link points at
-- a ruling or card and a rule that exist. Returns one row per broken rule. A delta load that
-- answers for the links by scope runs sql/checks/delta/links_scoped.sql instead.
SELECT 'ruling_rule key' AS chk, ruling_id || '/' || rule_number || '/' || method AS k FROM ruling_rule
    GROUP BY ruling_id, rule_number, method HAVING count(*) > 1
UNION ALL SELECT 'card_rule key', oracle_id || '/' || rule_number || '/' || method FROM card_rule
    GROUP BY oracle_id, rule_number, method HAVING count(*) > 1
UNION ALL SELECT 'ruling_rule.ruling_id', l.ruling_id FROM ruling_rule l ANTI JOIN ruling r USING (ruling_id)
UNION ALL SELECT 'ruling_rule.rule', l.rule_number FROM ruling_rule l
    ANTI JOIN cr_rule r ON r.number = l.rule_number AND r.effective_date = l.effective_date
UNION ALL SELECT 'card_rule.oracle_id', l.oracle_id FROM card_rule l ANTI JOIN card c USING (oracle_id)
UNION ALL SELECT 'card_rule.rule', l.rule_number FROM card_rule l
    ANTI JOIN cr_rule r ON r.number = l.rule_number AND r.effective_date = l.effective_date;
