-- The rulings whose translations a load changes (translations_touched, for
-- ruling_translation_key.sql): those with a row that the merge of stage_ruling_translation
-- will add, change or remove. Run before that merge.
CREATE OR REPLACE TEMP TABLE translations_touched AS
WITH now AS (SELECT ruling_id, lang, origin, text FROM ruling_translation),
     staged AS (SELECT ruling_id, lang, origin, text FROM stage_ruling_translation)
SELECT ruling_id FROM (SELECT * FROM staged EXCEPT SELECT * FROM now)
UNION
SELECT ruling_id FROM (SELECT * FROM now EXCEPT SELECT * FROM staged);
