-- The Comprehensive Rules, each ingested edition kept by its effective date, and the links from
-- rulings and cards to the rules they rest on (computed against the newest edition).

CREATE TABLE IF NOT EXISTS cr_edition (
    effective_date DATE NOT NULL,     -- from "These rules are effective as of …"
    doc_id        VARCHAR NOT NULL,   -- the ingested file (raw_document)
    rules         INTEGER NOT NULL,
    glossary_terms INTEGER NOT NULL
);

CREATE TABLE IF NOT EXISTS cr_rule (
    effective_date DATE NOT NULL,
    number        VARCHAR NOT NULL,   -- '7', '719', '719.3', '719.3a'
    parent        VARCHAR,            -- '719.3' for '719.3a'; NULL for a section
    title         VARCHAR,            -- 'Case Cards' for a titled rule, else NULL
    text          VARCHAR USING COMPRESSION zstd NOT NULL,   -- as published, without the number
    position      INTEGER NOT NULL    -- order in the document
);

CREATE TABLE IF NOT EXISTS cr_glossary (
    effective_date DATE NOT NULL,
    term          VARCHAR NOT NULL,
    text          VARCHAR USING COMPRESSION zstd NOT NULL
);

CREATE TABLE IF NOT EXISTS ruling_rule (
    ruling_id     VARCHAR NOT NULL,
    rule_number   VARCHAR NOT NULL,
    effective_date DATE NOT NULL,     -- the edition the link was made against
    method        VARCHAR NOT NULL,   -- citation | keyword | glossary
    evidence      VARCHAR NOT NULL    -- what in the text made the link
);

CREATE TABLE IF NOT EXISTS card_rule (
    oracle_id     VARCHAR NOT NULL,
    rule_number   VARCHAR NOT NULL,
    effective_date DATE NOT NULL,
    method        VARCHAR NOT NULL,   -- type_line | keyword | citation | wiki_quote | glossary
    evidence      VARCHAR NOT NULL
);
