-- Rulings per card, for the chart of the "rulings" report: the first $limit Oracle cards, most
-- rulings first, counting those without rulings (the chart shows no more bars: pipeline/report.py
-- CHART_BARS; fetching a bulk query's 140,000 cards took 0.3-0.5 s), each row with the count of
-- every card (cards).
SELECT c.name AS card, count(cr.ruling_id) AS rulings, count(*) OVER () AS cards
FROM card AS c LEFT JOIN card_ruling AS cr USING (oracle_id)
GROUP BY c.oracle_id, c.name
ORDER BY rulings DESC, card, c.oracle_id
LIMIT $limit;
