-- Change history: what each run changed, and the rulings that are gone.

ALTER TABLE sync_run ADD COLUMN IF NOT EXISTS duration_s DOUBLE;   -- wall time of the run: from its start to its rows written by the load; NULL after a rebuild

CREATE TABLE IF NOT EXISTS change_event (
    run_id        VARCHAR NOT NULL,   -- the run that brought the change
    seq           INTEGER NOT NULL,   -- order within the run
    kind          VARCHAR NOT NULL,   -- card_added | card_removed | card_changed | ruling_added |
                                      -- ruling_removed | ruling_reworded | ruling_text_changed |
                                      -- ruling_cards_changed | translation_added | translation_changed |
                                      -- translation_removed
    oracle_id     VARCHAR,            -- the card (card_*), or NULL
    ruling_id     VARCHAR,            -- the ruling (ruling_*, translation_*); after a reword, the new id
    previous_ruling_id VARCHAR,       -- ruling_reworded: the id of the old wording
    field         VARCHAR,            -- card_changed: the column; ruling_cards_changed: cards; ruling_reworded,
                                      -- ruling_text_changed: text; translation_*: the language
    before        VARCHAR USING COMPRESSION zstd,            -- the old value (text), NULL for additions
    after         VARCHAR USING COMPRESSION zstd,            -- the new value (text), NULL for removals
    name          VARCHAR,            -- card_*: the card's name; translation_*: the origin
    cards         VARCHAR[]           -- ruling_*, translation_*: the oracle ids of the ruling's cards
);

CREATE TABLE IF NOT EXISTS retired_ruling (
    ruling_id     VARCHAR NOT NULL,
    source        VARCHAR NOT NULL,
    published_at  DATE,
    text          VARCHAR USING COMPRESSION zstd NOT NULL,
    match_key     VARCHAR USING COMPRESSION zstd NOT NULL,
    oracle_ids    VARCHAR[],          -- the cards it applied to when it was last seen
    first_seen_run VARCHAR,
    last_seen_run VARCHAR,            -- the latest run loaded before removed_in_run (any query's): the warehouse still served it then
    removed_in_run VARCHAR NOT NULL   -- the run that no longer had it
);
