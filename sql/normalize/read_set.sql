-- Scryfall set objects ($files: /sets/{code} documents), one per file (pipeline/normalize/duck.py _stage_sets).
CREATE OR REPLACE TEMP TABLE set_doc AS
SELECT * FROM read_json($files, columns = $columns, filename = 'path', format = 'unstructured');
