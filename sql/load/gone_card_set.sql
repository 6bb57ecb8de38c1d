-- The sets the card_set merge will remove (apply_gone_card_set), for the checks of a delta load
-- (pipeline/load/warehouse.py _before_views).
CREATE OR REPLACE TEMP TABLE apply_gone_card_set AS
SELECT set_code FROM card_set ANTI JOIN stage_card_set USING (set_code);
