-- Which of the Oracle ids page copies name ($ids) are cards of the build (n_card); a page copy of
-- any other card is left out (pipeline/build.py _reconcile_with_pages).
SELECT oracle_id FROM n_card WHERE oracle_id IN (SELECT unnest($ids::VARCHAR[]));
