-- Which sync query brought which card (the current view of each query), so readers can report
-- on one query when the warehouse holds several.
CREATE TABLE IF NOT EXISTS query_card (
    query         VARCHAR NOT NULL,
    oracle_id     VARCHAR NOT NULL
);
