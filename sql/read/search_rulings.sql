-- Rulings matching every word of $words (already folded: lower case, no accents, straight quotes),
-- in English or in a translation. Ranked: the whole phrase first, then more hits, then shorter texts.
WITH folded AS (
    SELECT r.ruling_id, r.source, r.published_at, r.text,
           strip_accents(r.match_key) AS en,
           coalesce(strip_accents(translate(lower(string_agg(t.text, ' ')), '’‘“”«»–—', '''''""""--')), '') AS tr
    FROM ruling r
    LEFT JOIN ruling_translation t USING (ruling_id)
    GROUP BY ALL
), scored AS (
    SELECT *,
           contains(en, $phrase) OR contains(tr, $phrase) AS phrase_hit,
           list_sum([ (length(en || ' ' || tr) - length(replace(en || ' ' || tr, w, ''))) // length(w)
                      FOR w IN $words ]) AS hits
    FROM folded
    WHERE list_bool_and([ contains(en || ' ' || tr, w) FOR w IN $words ])
)
SELECT row_number() OVER (ORDER BY phrase_hit DESC, hits DESC, length(s.text), s.ruling_id) AS rank,
       s.published_at, s.source, s.text,
       coalesce((SELECT string_agg(c.name, '; ' ORDER BY c.name)
                   FROM card_ruling cr JOIN card c USING (oracle_id)
                  WHERE cr.ruling_id = s.ruling_id), '') AS cards,
       s.ruling_id
FROM scored s
ORDER BY rank
LIMIT $limit;
