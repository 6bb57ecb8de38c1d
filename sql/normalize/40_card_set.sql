-- card_set: set documents (the latest wins), and the bare code of any set a printing names
-- that no document describes.
CREATE OR REPLACE TEMP TABLE n_card_set AS
WITH described AS (
    SELECT upper(code) AS set_code, name, set_type, cf_iso_date(released_at) AS released_at, card_count, digital
    FROM set_object
    QUALIFY row_number() OVER (PARTITION BY upper(code) ORDER BY file_seq DESC, ord DESC) = 1
)
SELECT * FROM described
UNION ALL
SELECT DISTINCT p.set_code, NULL, NULL, NULL, NULL, NULL
FROM n_printing AS p
WHERE p.set_code NOT IN (SELECT set_code FROM described);
