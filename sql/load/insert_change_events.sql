-- The change events of one run, computed before the merge.
INSERT INTO change_event BY NAME SELECT * FROM stage_change_event;
