-- The bare code of a set that only unchanged printings name (40_card_set.sql saw the printings read again).
INSERT INTO n_card_set
SELECT DISTINCT p.set_code, NULL, NULL, NULL, NULL, NULL
FROM printing AS p
WHERE p.oracle_id NOT IN (SELECT oracle_id FROM d_dirty)
  AND p.scryfall_id NOT IN (SELECT scryfall_id FROM n_printing)
  AND p.set_code NOT IN (SELECT set_code FROM n_card_set);
