-- The card–ruling links of the rulings dataset: one row per card_ruling row, with the card's name.
-- position numbers a card's rulings 0 to n-1, each once, in the order `casefile card` numbers
-- them 1 to n (sql/read/card_rulings.sql): card_ruling.position can tie (a page shows a ruling
-- at the place where the API's list has another), and each ruling must still have its own place.
CREATE OR REPLACE TEMP VIEW export_card_rulings AS
SELECT cr.oracle_id,
       c.name AS card_name,
       cr.ruling_id,
       CAST(row_number() OVER (PARTITION BY cr.oracle_id ORDER BY cr.position, cr.ruling_id) - 1 AS INTEGER)
           AS position
FROM card_ruling AS cr
JOIN card AS c USING (oracle_id)
ORDER BY c.name, cr.oracle_id, cr.position, cr.ruling_id;
