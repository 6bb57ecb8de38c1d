-- ruling_translation_key brought up to date with ruling_translation, inside the load's
-- transaction, after the merges (pipeline/load/warehouse.py). $whole: every translated ruling is
-- derived again (a table to fill, or one whose translations were all new); else only those of
-- $touched, the rulings whose rows the merge of ruling_translation returned. Only the rows that
-- differ are written.
-- The keys come from read/translation_keys_folded.sql, the one definition of the fold, which the
-- search of a warehouse made before this table runs too: pipeline/load/warehouse.py puts it in the
-- FROM below. The filter on ruling_id reaches below its GROUP BY.
CREATE OR REPLACE TEMP TABLE translation_keys_fresh AS
SELECT ruling_id, key
FROM {translation_keys_folded}
WHERE $whole OR ruling_id IN (SELECT unnest($touched));

DELETE FROM ruling_translation_key AS t
WHERE ($whole OR t.ruling_id IN (SELECT unnest($touched)))
  AND NOT EXISTS (SELECT 1 FROM translation_keys_fresh AS f WHERE f.ruling_id = t.ruling_id AND f.key = t.key);

INSERT INTO ruling_translation_key
SELECT f.ruling_id, f.key FROM translation_keys_fresh AS f
ANTI JOIN ruling_translation_key AS t ON t.ruling_id = f.ruling_id AND t.key = f.key;

DROP TABLE translation_keys_fresh;
