-- query_card when the warehouse holds several queries (pipeline/build.py): the Oracle cards of
-- each view's card objects, as the Python path lists them. With one query every card is its.
-- $run_ids, $queries: each Scryfall view's run and query, in pairs.
CREATE OR REPLACE TEMP TABLE n_query_card AS
WITH view_query AS (
    SELECT unnest($run_ids::VARCHAR[]) AS run_id, unnest($queries::VARCHAR[]) AS query
), object_card AS (
    SELECT run_id, unnest(oracle_ids) AS oracle_id FROM n_object WHERE skip_reason IS NULL
)
SELECT DISTINCT q.query, o.oracle_id
FROM object_card AS o
JOIN view_query AS q USING (run_id);
