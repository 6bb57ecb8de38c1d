-- One rule of the newest edition (or of $edition), with its parent.
WITH edition AS (
    SELECT coalesce(CAST($edition AS DATE), (SELECT max(effective_date) FROM cr_edition)) AS d
)
SELECT r.number, r.title, r.text, r.parent, p.title AS parent_title, p.text AS parent_text, r.effective_date
FROM cr_rule r
JOIN edition e ON r.effective_date = e.d
LEFT JOIN cr_rule p ON p.effective_date = r.effective_date AND p.number = r.parent
WHERE r.number = $number;
