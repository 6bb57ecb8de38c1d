-- Bring card to the state staged in stage_card: insert new rows, update changed ones,
-- delete rows the current runs no longer hold. Returns one merge_action per row touched.
MERGE INTO card AS t
USING stage_card AS s
ON t.oracle_id = s.oracle_id
WHEN MATCHED AND (t.name, t.mana_cost, t.cmc, t.colors, t.color_identity, t.type_line, t.oracle_text, t.layout)
     IS DISTINCT FROM (s.name, s.mana_cost, s.cmc, s.colors, s.color_identity, s.type_line, s.oracle_text, s.layout)
    THEN UPDATE
WHEN NOT MATCHED THEN INSERT
WHEN NOT MATCHED BY SOURCE THEN DELETE
RETURNING merge_action;
