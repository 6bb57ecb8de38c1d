-- The card objects of search pages, in page order.
INSERT INTO card_object BY NAME
SELECT d.file_seq, p.ord, d.run_id, unnest(p.c)
FROM (SELECT path, unnest(data) AS c, generate_subscripts(data, 1) - 1 AS ord FROM list_page) AS p
JOIN doc_input AS d USING (path);
