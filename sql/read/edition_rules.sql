-- Every rule of the edition $edition, in document order.
SELECT number, parent, title, text, position FROM cr_rule
WHERE effective_date = CAST($edition AS DATE)
ORDER BY position;
