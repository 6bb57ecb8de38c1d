-- Rulings matching every word of $words (already folded: lower case, no accents, straight quotes),
-- in English or in a translation (folded by every load as the words are: ruling_translation_key).
-- Ranked: the whole phrase first, then more hits, then shorter texts.
-- $first, a piece of one of the words (pipeline/lookup.py scan_needle: from its rarest letter on),
-- narrows the rulings cheaply before every whole word is checked; the cards of the rulings shown
-- are read after (read/cards_of_rulings.sql).
-- The scan of ruling filters on match_key alone, so DuckDB reads the other columns only for the
-- rows that pass (by_key); the rulings found through their translations only are read after, by
-- their ids (by_translation), so that no second scan of every match_key is needed to leave out
-- those found already.
-- tr reads the table of translation keys, or, on a warehouse made before it, the same keys folded
-- by the query (read/translation_keys_folded.sql): pipeline/lookup.py puts either in its FROM.
WITH tr AS (
    SELECT ruling_id, key AS tr FROM {translation_keys}
), by_key AS MATERIALIZED (
    -- strip_accents only where the key is not plain ASCII (its byte length differs from its length)
    SELECT ruling_id, source, published_at, text, match_key
    FROM ruling
    WHERE contains(match_key, $first)
       OR (strlen(match_key) <> length(match_key) AND contains(strip_accents(match_key), $first))
), by_translation AS (
    SELECT ruling_id FROM tr WHERE contains(tr, $first)
    EXCEPT
    SELECT ruling_id FROM by_key
), matched AS (
    SELECT * FROM by_key
    UNION ALL
    SELECT r.ruling_id, r.source, r.published_at, r.text, r.match_key
    FROM ruling AS r
    SEMI JOIN by_translation USING (ruling_id)
), candidates AS (
    -- the text searched: the key (accents stripped where it is not plain ASCII), then the
    -- translations; a ruling without any keeps its key as it is rather than a copy joined to ''
    SELECT ruling_id, source, published_at, text, CASE WHEN tr IS NULL THEN key ELSE key || ' ' || tr END AS hay
    FROM (SELECT m.ruling_id, m.source, m.published_at, m.text, tr.tr,
                 CASE WHEN strlen(m.match_key) = length(m.match_key) THEN m.match_key
                      ELSE strip_accents(m.match_key) END AS key
          FROM matched AS m
          LEFT JOIN tr USING (ruling_id))
), scored AS (
    -- hits: occurrences of each word, counted in bytes (removing k copies of w shortens hay by k * strlen(w))
    SELECT *,
           contains(hay, $phrase) AS phrase_hit,
           list_sum([ (strlen(hay) - strlen(replace(hay, w, ''))) // strlen(w) FOR w IN $words ]) AS hits
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
