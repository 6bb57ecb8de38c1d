-- The line index after a full build from one bulk view (pipeline/normalize/delta.py index_full):
-- its files and their lines. Runs after line_index_clear.sql.
INSERT INTO line_index.bulk_file BY NAME SELECT * FROM n_bulk_file;
INSERT INTO line_index.card_line BY NAME SELECT * FROM n_card_line;
INSERT INTO line_index.ruling_line BY NAME SELECT * FROM n_ruling_line;
