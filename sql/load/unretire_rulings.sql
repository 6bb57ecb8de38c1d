-- A ruling that comes back is no longer retired.
DELETE FROM retired_ruling WHERE ruling_id IN (SELECT ruling_id FROM stage_ruling);
