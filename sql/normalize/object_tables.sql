-- The staged objects a build reads documents into (pipeline/normalize/duck.py stage_documents;
-- card_object is made there, its columns from CARD_COLUMNS). line_place: the places of the lines
-- a delta build reads again (pipeline/normalize/delta.py); empty here, files are read whole.
CREATE OR REPLACE TEMP TABLE ruling_object (file_seq INTEGER, ord BIGINT, doc_id VARCHAR, place VARCHAR,
    oracle_id VARCHAR, position INTEGER, source VARCHAR, published_at VARCHAR, comment VARCHAR, skip_reason VARCHAR);
CREATE OR REPLACE TEMP TABLE set_object (file_seq INTEGER, ord BIGINT, code VARCHAR, name VARCHAR,
    set_type VARCHAR, released_at VARCHAR, card_count BIGINT, digital BOOLEAN);
CREATE OR REPLACE TEMP TABLE line_place (i BIGINT, ord BIGINT, off BIGINT, len INTEGER);
