-- ruling_translation_key's keys, folded from ruling_translation: the fold the search gives its
-- words (FOLD_PARAMS, pipeline/normalize/text.py: lower case, quotes and dashes folded, invisible
-- characters dropped, accents stripped), a ruling's translations in one order so that every load
-- of the same rows makes the same key. Every load derives the table with it
-- (load/ruling_translation_key.sql); the search of a warehouse made before the table runs it.
(SELECT ruling_id,
        strip_accents(translate(lower(string_agg(text, ' ' ORDER BY lang, origin, text)), $fold_from, $fold_to)) AS key
 FROM ruling_translation
 GROUP BY ruling_id)
