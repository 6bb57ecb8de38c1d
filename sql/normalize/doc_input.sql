-- The documents of one read (search pages, rulings lists, sets), filled by
-- pipeline/normalize/duck.py _register_docs; the read_list*.sql and read_set*.sql join it by path.
CREATE OR REPLACE TEMP TABLE doc_input (file_seq INTEGER, run_id VARCHAR, doc_id VARCHAR, key VARCHAR,
    path VARCHAR, doc_name VARCHAR);
