-- Rulings and cards linked to the rule $number in the edition $edition, with how each link was
-- found: the first $limit of each kind (0: all) in the order shown, and how many there are of
-- that kind (total). A rule of a warehouse of every card links hundreds of thousands of
-- rulings: only the rows shown leave DuckDB.
WITH links AS (
    SELECT 'ruling' AS what, r.published_at, r.source, r.text AS text, l.rule_number, l.method, l.evidence,
           r.ruling_id AS id
    FROM ruling_rule l JOIN ruling r USING (ruling_id)
    WHERE l.effective_date = CAST($edition AS DATE) AND l.rule_number = $number
    UNION ALL
    SELECT 'card', NULL, NULL, c.name, l.rule_number, l.method, l.evidence, c.oracle_id
    FROM card_rule l JOIN card c USING (oracle_id)
    WHERE l.effective_date = CAST($edition AS DATE) AND l.rule_number = $number
), numbered AS (
    SELECT *, row_number() OVER (PARTITION BY what ORDER BY text, method, id) AS k,
           count(*) OVER (PARTITION BY what) AS total
    FROM links
)
SELECT what, published_at, source, text, rule_number, method, evidence, id, total
FROM numbered
WHERE $limit = 0 OR k <= $limit
ORDER BY what DESC, k;
