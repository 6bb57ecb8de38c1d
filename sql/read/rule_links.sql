-- Rulings and cards linked to the rule $number (or to its sub-rules: 702.169 covers 702.169b),
-- in the edition $edition, with how each link was found.
SELECT 'ruling' AS what, r.published_at, r.source, r.text AS text, l.rule_number, l.method, l.evidence,
       r.ruling_id AS id
FROM ruling_rule l JOIN ruling r USING (ruling_id)
WHERE l.effective_date = CAST($edition AS DATE) AND l.rule_number = $number
UNION ALL
SELECT 'card', NULL, NULL, c.name, l.rule_number, l.method, l.evidence, c.oracle_id
FROM card_rule l JOIN card c USING (oracle_id)
WHERE l.effective_date = CAST($edition AS DATE) AND l.rule_number = $number
ORDER BY what DESC, text, method;
