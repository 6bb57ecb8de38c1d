-- Scryfall list objects ($files: search pages, rulings lists or the sets list), one per file.
CREATE OR REPLACE TEMP TABLE list_page AS
SELECT * FROM read_json($files, columns = $columns, filename = 'path', format = 'unstructured');
