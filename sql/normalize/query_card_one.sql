-- query_card when the build has one query ($query, pipeline/build.py): every card of n_card is
-- its. Several queries: query_card_views.sql.
CREATE OR REPLACE TEMP TABLE n_query_card AS
SELECT DISTINCT CAST($query AS VARCHAR) AS query, oracle_id FROM n_card;
