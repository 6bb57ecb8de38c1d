-- stage_moves, empty: the file (doc_id, path) each raw_document row that moves is to name, for
-- repoint_documents.sql and repoint_lost_documents.sql (pipeline/load/warehouse.py fills it).
DROP TABLE IF EXISTS temp.main.stage_moves;
CREATE TEMP TABLE stage_moves (doc_id VARCHAR, path VARCHAR);
