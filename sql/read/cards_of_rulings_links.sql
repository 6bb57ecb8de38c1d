-- The names of the cards each ruling of $ruling_ids applies to, joined by "; ", from the links:
-- for a warehouse made before ruling_card_names (cards_of_rulings.sql), until its next writer.
SELECT cr.ruling_id, string_agg(c.name, '; ' ORDER BY c.name) AS cards
FROM card_ruling cr
JOIN card c USING (oracle_id)
WHERE list_contains($ruling_ids, cr.ruling_id)
GROUP BY cr.ruling_id;
