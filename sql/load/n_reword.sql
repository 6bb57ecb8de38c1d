-- n_reword: the removed + added rulings that are one ruling re-worded, in pairs ($old, $new: the
-- ids, as pipeline/changes.py chose them among reword_candidates.sql).
CREATE OR REPLACE TEMP TABLE n_reword AS
SELECT CAST(unnest($old) AS VARCHAR) AS old_id, CAST(unnest($new) AS VARCHAR) AS new_id;
