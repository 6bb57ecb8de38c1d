-- The names of the cards each ruling of $ruling_ids applies to, joined by "; " (ruling_card_names,
-- which every load keeps up to date). A warehouse made before that table is read with
-- cards_of_rulings_links.sql.
SELECT n.ruling_id, n.cards
FROM ruling_card_names AS n
SEMI JOIN (SELECT unnest($ruling_ids) AS ruling_id) AS shown ON shown.ruling_id = n.ruling_id;
