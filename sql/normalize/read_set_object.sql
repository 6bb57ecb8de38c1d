-- The set objects of set_doc (read_set.sql, checked by bad_set.sql), one per document.
INSERT INTO set_object
SELECT d.file_seq, 0, s.code, s.name, s.set_type, s.released_at, s.card_count, s.digital
FROM set_doc AS s JOIN doc_input AS d USING (path);
