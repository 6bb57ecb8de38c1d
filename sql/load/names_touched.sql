-- The rulings whose card names a delta load can change (names_touched, for ruling_card_names.sql):
-- those that gain or lose a link among the links the load answered for (old_card_ruling: the
-- rows of its scope before the merge; stage_card_ruling: as they are now), and those linked to a
-- card it adds or renames. A link that only moves on its card's list changes no name.
CREATE OR REPLACE TEMP TABLE names_touched AS
WITH before AS (SELECT oracle_id, ruling_id FROM old_card_ruling),
     after AS (SELECT oracle_id, ruling_id FROM stage_card_ruling),
     renamed AS (SELECT oracle_id, name FROM stage_card EXCEPT SELECT oracle_id, name FROM old_card)
SELECT ruling_id FROM (SELECT * FROM before EXCEPT SELECT * FROM after)
UNION
SELECT ruling_id FROM (SELECT * FROM after EXCEPT SELECT * FROM before)
UNION
SELECT cr.ruling_id FROM card_ruling AS cr SEMI JOIN renamed ON renamed.oracle_id = cr.oracle_id;
