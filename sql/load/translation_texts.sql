-- The translations of the rulings whose keys ruling_translation_key.sql has just derived ($whole:
-- every translated ruling; else those of $touched), in the order of the key's text
-- (read/translation_keys_folded.sql), for the few whose key SQL cannot fold as the search folds
-- its words (pipeline/load/warehouse.py _refold_translation_keys). Only texts that are not plain
-- ASCII: on those, Unicode normalization and case folding change nothing beyond lower().
SELECT ruling_id, list(text ORDER BY lang, origin, text) AS texts
FROM ruling_translation
WHERE ($whole OR ruling_id IN (SELECT unnest($touched)))
  AND ruling_id IN (SELECT ruling_id FROM ruling_translation WHERE strlen(text) <> length(text))
GROUP BY ruling_id;
