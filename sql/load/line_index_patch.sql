-- The line index after a delta build (sql/delta/index_patch.sql): the lines that changed only.
DELETE FROM line_index.bulk_file;
INSERT INTO line_index.bulk_file BY NAME SELECT * FROM n_bulk_file;
DELETE FROM line_index.card_line AS i USING n_card_line_gone AS g WHERE i.h = g.h AND i.n = g.n;
INSERT INTO line_index.card_line BY NAME SELECT * FROM n_card_line_new;
DELETE FROM line_index.ruling_line AS i USING n_ruling_line_gone AS g WHERE i.h = g.h AND i.n = g.n;
UPDATE line_index.ruling_line AS i SET position = m.position FROM n_ruling_line_moved AS m WHERE i.h = m.h AND i.n = m.n;
INSERT INTO line_index.ruling_line BY NAME SELECT * FROM n_ruling_line_new;
