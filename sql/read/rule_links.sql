-- Rulings and cards linked to the rule $number in the edition $edition, with how each link was
-- found: the links of the first $limit rulings and the first $limit cards (0: all) in the order
-- shown, a ruling's or card's links one after the other, and how many rulings or cards there are
-- of that kind (total): a ruling linked twice (by a citation and a keyword) is one ruling. A rule
-- of a warehouse of every card links hundreds of thousands of rulings: only the rows shown leave
-- DuckDB.
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
    SELECT *, dense_rank() OVER (PARTITION BY what ORDER BY text, id) AS k
    FROM links
), counted AS (
    SELECT *, max(k) OVER (PARTITION BY what) AS total
    FROM numbered
)
SELECT what, published_at, source, text, rule_number, method, evidence, id, total
FROM counted
WHERE $limit = 0 OR k <= $limit
ORDER BY what DESC, k, method;
