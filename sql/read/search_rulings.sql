-- Rulings matching every word of $words (already folded: lower case, no accents, straight quotes),
-- in English or in a translation. Ranked: the whole phrase first, then more hits, then shorter texts.
-- $first, the longest word, narrows the rulings cheaply before the other words are checked; the
-- cards of the rulings shown are read after (read/cards_of_rulings.sql).
WITH tr AS (
    SELECT ruling_id, strip_accents(translate(lower(string_agg(text, ' ')), '’‘“”«»–—', '''''""""--')) AS tr
    FROM ruling_translation
    GROUP BY ruling_id
), candidates AS (
    SELECT r.ruling_id, r.source, r.published_at, r.text,
           CASE WHEN strlen(r.match_key) = length(r.match_key) THEN r.match_key  -- plain ASCII: nothing to strip
                ELSE strip_accents(r.match_key) END || coalesce(' ' || tr.tr, '') AS hay
    FROM ruling r
    LEFT JOIN tr USING (ruling_id)
    -- strip_accents only where the key is not plain ASCII (its byte length differs from its length)
    WHERE contains(r.match_key, $first)
       OR (strlen(r.match_key) <> length(r.match_key) AND contains(strip_accents(r.match_key), $first))
       OR contains(tr.tr, $first)
), scored AS (
    SELECT *,
           contains(hay, $phrase) AS phrase_hit,
           list_sum([ (length(hay) - length(replace(hay, w, ''))) // length(w) FOR w IN $words ]) AS hits
    FROM candidates
    WHERE list_bool_and([ contains(hay, w) FOR w IN $words ])
), shown AS (
    SELECT * FROM scored
    ORDER BY phrase_hit DESC, hits DESC, length(text), ruling_id
    LIMIT $limit
)
SELECT row_number() OVER (ORDER BY phrase_hit DESC, hits DESC, length(s.text), s.ruling_id) AS rank,
       s.published_at, s.source, s.text, s.ruling_id
FROM shown s
ORDER BY rank;
