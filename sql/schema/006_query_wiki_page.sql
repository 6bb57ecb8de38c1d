-- Which MTG wiki page each sync query's current view holds. The wiki's copies name no card, so a
-- report on one query finds its wiki rulings and sightings through this table; a page whose bytes
-- several queries fetched is one document (raw_document names only the first run) but each query's.
CREATE TABLE IF NOT EXISTS query_wiki_page (
    query         VARCHAR NOT NULL,
    doc_id        VARCHAR NOT NULL
);
