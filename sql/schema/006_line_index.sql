-- The line index of the bulk files the warehouse was last built from (pipeline/normalize/delta.py):
-- what each object line of Scryfall's card and rulings files gave the tables. A sync compares
-- the new day's lines with these and reads again only the lines that changed and the lines of
-- the cards they touch. Not part of the table contract: empty after a load that did not come
-- from one bulk view, rewritten by every load in the same transaction as the tables it describes.
CREATE SCHEMA IF NOT EXISTS line_index;

CREATE TABLE IF NOT EXISTS line_index.bulk_file (
    kind          VARCHAR NOT NULL,   -- bulk-cards | bulk-rulings
    query         VARCHAR NOT NULL,   -- the view's query
    doc_id        VARCHAR NOT NULL,   -- the raw document the lines are from
    version       VARCHAR NOT NULL    -- layout and hash function (pipeline/normalize/lines.py)
);

-- Cards are named by the hash of their Oracle id (hash(oracle_id)): the index is written at every
-- full load, and integers cost a fraction of what text does to write. A hash is turned back into
-- the Oracle id through the warehouse's own tables.

-- One row per object line of the card file and Oracle card it is a printing of (a reversible
-- card's line has two): (h, n) names the line (its text's hash, and how many identical lines
-- come before it).
CREATE TABLE IF NOT EXISTS line_index.card_line (
    h             UBIGINT NOT NULL,
    n             INTEGER NOT NULL,
    oracle_h      UBIGINT,            -- hash(oracle_id); NULL for a line left out or refused
    kept          BOOLEAN NOT NULL,   -- the query keeps it
    refused       BOOLEAN NOT NULL    -- kept, but not a readable card object
);

-- One row per object line of the rulings file.
CREATE TABLE IF NOT EXISTS line_index.ruling_line (
    h             UBIGINT NOT NULL,
    n             INTEGER NOT NULL,
    oracle_h      UBIGINT,            -- hash(oracle_id); NULL if the ruling names none
    position      INTEGER,            -- its place among the rulings of its card
    refused       BOOLEAN NOT NULL
);
