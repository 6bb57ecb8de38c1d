-- The set objects of the /sets list (bulk plan); entries without a code are left out.
INSERT INTO set_object
SELECT d.file_seq, p.ord, p.s.code, p.s.name, p.s.set_type, p.s.released_at, p.s.card_count, p.s.digital
FROM (SELECT path, unnest(data) AS s, generate_subscripts(data, 1) - 1 AS ord FROM list_page) AS p
JOIN doc_input AS d USING (path)
WHERE p.s.code IS NOT NULL;
