-- casefile warehouse: the tables of the data contract (see README, "Tables").
-- Applied on every writer connection; each statement is idempotent.
-- Keys are enforced by sql/checks/*.sql rather than PRIMARY KEY constraints, so that one load
-- transaction can rewrite rows in any order.
-- Long texts are stored with zstd (USING COMPRESSION zstd): on ruling texts it writes four to five
-- times faster than DuckDB's default string compression and takes less room. The rulings' own
-- texts are the exception: `casefile search` reads them, and they are stored uncompressed.
-- (A warehouse made before a column said so keeps its compression until `casefile rebuild`.)

CREATE TABLE IF NOT EXISTS sync_run (
    run_id        VARCHAR NOT NULL,   -- the raw folder name: data/raw/<run_id>/
    started_at    TIMESTAMP,
    finished_at   TIMESTAMP,
    status        VARCHAR NOT NULL,   -- ok | no_changes
    mode          VARCHAR NOT NULL,   -- live | offline | ingest (casefile rules ingest)
    query         VARCHAR,
    sources       VARCHAR,            -- comma-separated: api,wiki,listeblanche,scryfall-page,rules
    replay_of     VARCHAR,            -- offline runs: the recorded run they replayed
    requests      INTEGER,            -- HTTP exchanges (retries included); replayed responses offline
    bytes         BIGINT,
    documents     INTEGER,
    inserted      INTEGER,            -- rows inserted, updated, removed across the data tables
    updated       INTEGER,
    removed       INTEGER,
    loaded_at     TIMESTAMP
);

CREATE TABLE IF NOT EXISTS raw_document (
    doc_id        VARCHAR NOT NULL,   -- sha256 of url + "\n" + body
    run_id        VARCHAR NOT NULL,   -- the first run that fetched these bytes from this URL
    origin        VARCHAR NOT NULL,   -- scryfall-api | mtgwiki | listeblanche | scryfall-page | comprehensive-rules
    kind          VARCHAR NOT NULL,   -- search | rulings | set | page | robots | rules; bulk: bulk-index | bulk-cards | bulk-rulings | sets | plan-probe
    url           VARCHAR NOT NULL,
    fetched_at    TIMESTAMP,
    http_status   INTEGER,
    content_type  VARCHAR,
    path          VARCHAR NOT NULL,   -- relative to data/raw/: the first run's file, or a kept copy after a prune
    bytes         BIGINT,
    sha256        VARCHAR             -- of the body alone
);

CREATE TABLE IF NOT EXISTS card_set (
    set_code      VARCHAR NOT NULL,   -- upper case: MKM
    name          VARCHAR,
    set_type      VARCHAR,
    released_at   DATE,
    card_count    INTEGER,
    digital       BOOLEAN
);

CREATE TABLE IF NOT EXISTS card (
    oracle_id     VARCHAR NOT NULL,
    name          VARCHAR NOT NULL,
    mana_cost     VARCHAR,            -- '' (no cost) is not '{0}'; NULL when unknown
    cmc           DOUBLE,
    colors        VARCHAR[],
    color_identity VARCHAR[],
    type_line     VARCHAR,
    oracle_text   VARCHAR USING COMPRESSION zstd,
    layout        VARCHAR
);

CREATE TABLE IF NOT EXISTS printing (
    scryfall_id   VARCHAR NOT NULL,
    oracle_id     VARCHAR NOT NULL,
    set_code      VARCHAR NOT NULL,
    collector_number VARCHAR NOT NULL, -- text: '79†', '10s'
    lang          VARCHAR NOT NULL,
    rarity        VARCHAR,
    released_at   DATE,
    printed_name  VARCHAR,
    printed_text  VARCHAR USING COMPRESSION zstd,
    digital       BOOLEAN,
    scryfall_uri  VARCHAR
);

CREATE TABLE IF NOT EXISTS ruling (
    ruling_id     VARCHAR NOT NULL,   -- derived from (source, published_at, match_key)
    source        VARCHAR NOT NULL,   -- as its copies show it (wotc | scryfall); else their origin:
                                      -- mtgwiki (wiki-only), scryfall-page, listeblanche
    published_at  DATE,               -- NULL for undated rulings (wiki-only)
    -- Stored uncompressed: `casefile search` scans every match_key and reads the text of the
    -- rulings it finds, and zstd blocks make both slower (README, "How it works").
    text          VARCHAR USING COMPRESSION uncompressed NOT NULL,   -- the best copy seen
    match_key     VARCHAR USING COMPRESSION uncompressed NOT NULL
);

CREATE TABLE IF NOT EXISTS card_ruling (
    oracle_id     VARCHAR NOT NULL,
    ruling_id     VARCHAR NOT NULL,
    position      INTEGER NOT NULL    -- order on the card's rulings list (Scryfall's order when known);
                                      -- may tie with a ruling only a page shows: order by (position, ruling_id)
);

-- Derived by every load from card_ruling and card (sql/load/ruling_card_names.sql), for the cards
-- column of `casefile search`. Stored uncompressed: a search reads some 20 scattered rows, and
-- DuckDB decodes a whole vector of a compressed column to read one row of it (README, "How it
-- works").
CREATE TABLE IF NOT EXISTS ruling_card_names (
    ruling_id     VARCHAR USING COMPRESSION uncompressed NOT NULL,   -- a ruling with at least one card
    cards         VARCHAR USING COMPRESSION uncompressed NOT NULL    -- its cards' names in order, joined by '; '
);

-- Derived by every load from ruling_translation (sql/load/ruling_translation_key.sql), for
-- `casefile search`: each translated ruling's translations folded as the search folds its words,
-- so that a search scans one key a ruling instead of folding every translation again. Stored
-- uncompressed, as ruling.match_key is: the search scans every key.
CREATE TABLE IF NOT EXISTS ruling_translation_key (
    ruling_id     VARCHAR NOT NULL,   -- a ruling with at least one translation
    key           VARCHAR USING COMPRESSION uncompressed NOT NULL   -- its translations, folded, joined by ' '
);

CREATE TABLE IF NOT EXISTS ruling_sighting (
    sighting_id   VARCHAR NOT NULL,   -- derived from (place, oracle_id, position, lang); place = doc_id, or the bulk rulings file of a view
    ruling_id     VARCHAR NOT NULL,
    doc_id        VARCHAR NOT NULL,
    origin        VARCHAR NOT NULL,
    oracle_id     VARCHAR,            -- NULL on pages about a whole subtype (the wiki)
    position      INTEGER NOT NULL,
    lang          VARCHAR NOT NULL,
    text_as_seen  VARCHAR USING COMPRESSION zstd NOT NULL,
    date_as_seen  DATE,
    source_as_seen VARCHAR,
    flags         VARCHAR[]           -- symbols_lost, matched_without_date, ambiguous_match, other_wording,
                                      -- machine-translation (a French copy its page says is machine-made)
);

CREATE TABLE IF NOT EXISTS ruling_translation (
    ruling_id     VARCHAR NOT NULL,
    lang          VARCHAR NOT NULL,
    origin        VARCHAR NOT NULL,
    text          VARCHAR USING COMPRESSION zstd NOT NULL,
    machine_translated BOOLEAN NOT NULL
);
