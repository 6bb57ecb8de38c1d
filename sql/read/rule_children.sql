-- The rules directly under $number in the edition $edition.
SELECT number, title, text FROM cr_rule
WHERE effective_date = CAST($edition AS DATE) AND parent = $number
ORDER BY position;
