-- The rulings whose card names a delta load can change (names_touched, for ruling_card_names.sql):
-- those of the links it answered for, as they were (old_card_ruling: the rows of its scope
-- before the merge) and as they are staged, and those linked to a card it adds or renames.
CREATE OR REPLACE TEMP TABLE names_touched AS
SELECT ruling_id FROM old_card_ruling
UNION
SELECT ruling_id FROM stage_card_ruling
UNION
SELECT cr.ruling_id
FROM card_ruling AS cr
SEMI JOIN (SELECT oracle_id, name FROM stage_card EXCEPT SELECT oracle_id, name FROM old_card) AS renamed
    ON renamed.oracle_id = cr.oracle_id;
