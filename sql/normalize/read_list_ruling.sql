-- The rulings of /cards/{id}/rulings lists: position is the place in the list; a ruling without
-- its oracle_id belongs to the card the list was asked for (the document's key).
INSERT INTO ruling_object
SELECT d.file_seq, p.ord, d.doc_id, NULL, coalesce(p.r.oracle_id, d.key), p.ord, p.r.source, p.r.published_at, p.r.comment,
    CASE WHEN p.r IS NULL OR p.r.comment IS NULL OR cf_blank(p.r.comment) THEN 'ruling without a comment'
         WHEN cf_iso_date(p.r.published_at) IS NULL THEN 'ruling without an ISO published_at' END
FROM (SELECT path, unnest(data) AS r, generate_subscripts(data, 1) - 1 AS ord FROM list_page) AS p
JOIN doc_input AS d USING (path);
