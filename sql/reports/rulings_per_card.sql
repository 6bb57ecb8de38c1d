-- Rulings per card, for the chart of the "rulings" report: every Oracle card, with or without rulings.
SELECT c.name AS card, count(cr.ruling_id) AS rulings
FROM card AS c LEFT JOIN card_ruling AS cr USING (oracle_id)
GROUP BY c.oracle_id, c.name
ORDER BY rulings DESC, card, c.oracle_id;
