-- ruling_translation_key as a load derives it (load/ruling_translation_key.sql), folded at each
-- search: for a warehouse made before that table, until its next writer fills it.
(SELECT ruling_id,
        strip_accents(translate(lower(string_agg(text, ' ' ORDER BY lang, origin, text)), $fold_from, $fold_to)) AS key
 FROM ruling_translation
 GROUP BY ruling_id)
