-- The first document of list_page (read_list.sql) that is not a Scryfall list object with a data
-- array, by name; none when all are (pipeline/normalize/duck.py _stage_lists).
SELECT doc_name FROM list_page JOIN doc_input USING (path)
WHERE object IS DISTINCT FROM 'list' OR data IS NULL
ORDER BY file_seq LIMIT 1;
