-- The line index describes nothing until this load's build says what it describes.
DELETE FROM line_index.bulk_file;
DELETE FROM line_index.card_line;
DELETE FROM line_index.ruling_line;
