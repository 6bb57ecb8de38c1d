-- The card–ruling links of the rulings dataset: one row per card_ruling row, with the card's name.
CREATE OR REPLACE TEMP VIEW export_card_rulings AS
SELECT cr.oracle_id,
       c.name AS card_name,
       cr.ruling_id,
       cr.position
FROM card_ruling AS cr
JOIN card AS c USING (oracle_id)
ORDER BY c.name, cr.oracle_id, cr.position, cr.ruling_id;
