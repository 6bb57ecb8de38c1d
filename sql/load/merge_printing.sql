-- Bring printing to the state staged in stage_printing: insert new rows, update changed ones,
-- delete rows the current runs no longer hold. Returns one merge_action per row touched.
MERGE INTO printing AS t
USING stage_printing AS s
ON t.scryfall_id = s.scryfall_id
WHEN MATCHED AND (t.oracle_id, t.set_code, t.collector_number, t.lang, t.rarity, t.released_at, t.printed_name, t.printed_text, t.digital, t.scryfall_uri)
     IS DISTINCT FROM (s.oracle_id, s.set_code, s.collector_number, s.lang, s.rarity, s.released_at, s.printed_name, s.printed_text, s.digital, s.scryfall_uri)
    THEN UPDATE
WHEN NOT MATCHED THEN INSERT
WHEN NOT MATCHED BY SOURCE THEN DELETE
RETURNING merge_action;
