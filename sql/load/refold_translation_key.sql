-- A ruling's translation key folded by Python's search_fold (pipeline/load/warehouse.py
-- _refold_translation_keys): $key for the ruling $ruling_id.
UPDATE ruling_translation_key SET key = $key WHERE ruling_id = $ruling_id AND key <> $key;
