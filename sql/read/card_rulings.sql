-- The rulings of one card in its order, with where each was seen and its translations.
-- n numbers them 1 to n: two rulings can share a position (a page shows a ruling at the place
-- where the API's list has another), and each must still have a number of its own.
SELECT row_number() OVER (ORDER BY cr.position, r.ruling_id) AS n,
       r.published_at,
       r.source,
       r.text,
       (SELECT string_agg(DISTINCT s.origin, ', ' ORDER BY s.origin)
          FROM ruling_sighting s
         WHERE s.ruling_id = r.ruling_id AND s.lang = 'en'
           AND (s.oracle_id = cr.oracle_id OR s.oracle_id IS NULL)) AS seen_on,
       (SELECT string_agg(t.lang || ' (' || t.origin || CASE WHEN t.machine_translated THEN ', machine translation' ELSE '' END
                          || '): ' || t.text, ' | ' ORDER BY t.lang, t.origin)
          FROM ruling_translation t WHERE t.ruling_id = r.ruling_id) AS translations,
       -- in the order of the rules document (702.19 before 702.169), which text order is not
       (SELECT string_agg(l.rule_number || ' (' || l.method || ')', ', '
                          ORDER BY k.position NULLS LAST, l.rule_number, l.method)
          FROM ruling_rule l
          LEFT JOIN cr_rule k ON k.effective_date = l.effective_date AND k.number = l.rule_number
         WHERE l.ruling_id = r.ruling_id
           AND l.effective_date = (SELECT max(effective_date) FROM cr_edition)) AS rules,
       r.ruling_id
FROM card_ruling cr
JOIN ruling r USING (ruling_id)
WHERE cr.oracle_id = $oracle_id
ORDER BY cr.position, r.ruling_id;
