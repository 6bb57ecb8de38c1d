-- The translations of the rulings whose keys ruling_translation_key.sql has just derived ($whole:
-- every translated ruling; else those of $touched), in the order of the key's text
-- (read/translation_keys_folded.sql), for the few whose key SQL cannot fold as the search folds
-- its words (pipeline/load/warehouse.py _refold_translation_keys): the rulings with a text that
-- holds a character of $beyond (normalize/text.py BEYOND_SQL_FOLD), the only ones that may need
-- it. A plain ASCII text holds none; the test of its length is the cheap one.
SELECT ruling_id, list(text ORDER BY lang, origin, text) AS texts
FROM ruling_translation
WHERE ($whole OR ruling_id IN (SELECT unnest($touched)))
  AND ruling_id IN (SELECT ruling_id FROM ruling_translation
                    WHERE strlen(text) <> length(text) AND regexp_matches(text, $beyond))
GROUP BY ruling_id;
