-- The rules links (ruling_rule, card_rule) of a delta load that answers for them by scope
-- (sql/delta/scope_links.sql): keys of the staged links, and references of the staged links
-- and of the links whose ruling or card was deleted.
SELECT 'ruling_rule key' AS chk, ruling_id || '/' || rule_number || '/' || method AS k FROM stage_ruling_rule
    GROUP BY ruling_id, rule_number, method HAVING count(*) > 1
UNION ALL SELECT 'card_rule key', oracle_id || '/' || rule_number || '/' || method FROM stage_card_rule
    GROUP BY oracle_id, rule_number, method HAVING count(*) > 1
UNION ALL SELECT 'ruling_rule.ruling_id', l.ruling_id FROM stage_ruling_rule l ANTI JOIN ruling r USING (ruling_id)
UNION ALL SELECT 'ruling_rule.ruling_id', l.ruling_id FROM ruling_rule l
    SEMI JOIN (SELECT ruling_id FROM apply_action_ruling WHERE action = 'DELETE') USING (ruling_id) ANTI JOIN ruling USING (ruling_id)
UNION ALL SELECT 'ruling_rule.rule', l.rule_number FROM stage_ruling_rule l
    ANTI JOIN cr_rule r ON r.number = l.rule_number AND r.effective_date = l.effective_date
UNION ALL SELECT 'card_rule.oracle_id', l.oracle_id FROM stage_card_rule l ANTI JOIN card c USING (oracle_id)
UNION ALL SELECT 'card_rule.oracle_id', l.oracle_id FROM card_rule l
    SEMI JOIN (SELECT oracle_id FROM apply_action_card WHERE action = 'DELETE') USING (oracle_id) ANTI JOIN card USING (oracle_id)
UNION ALL SELECT 'card_rule.rule', l.rule_number FROM stage_card_rule l
    ANTI JOIN cr_rule r ON r.number = l.rule_number AND r.effective_date = l.effective_date;
