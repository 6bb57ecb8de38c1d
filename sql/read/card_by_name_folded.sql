-- card_by_name.sql again with both sides folded alike, for a $name that matched nothing as typed:
-- case, accents and the style of quotes and dashes do not matter ("gorgon’s kiss" finds "Gorgon's
-- Kiss", "pacte fracasse" "Pacte fracassé"; the quotes and dashes are those of match keys and
-- search, pipeline/normalize/text.py: "gorgon´s" too). Only a text that is not plain ASCII is folded:
-- strip_accents is the costly part, and the query as typed (card_by_name.sql) runs without it.
WITH wanted AS (
    SELECT strip_accents(lower(translate($name, $fold_from, $fold_to))) AS n
), cards AS (
    SELECT oracle_id, name,
           CASE WHEN strlen(name) = length(name) THEN lower(name)
                ELSE strip_accents(lower(translate(name, $fold_from, $fold_to))) END AS folded
    FROM card
), printed AS (
    SELECT p.oracle_id
    FROM printing AS p, wanted AS w
    WHERE w.n <> '' AND contains(CASE WHEN strlen(p.printed_name) = length(p.printed_name) THEN lower(p.printed_name)
                        ELSE strip_accents(lower(translate(p.printed_name, $fold_from, $fold_to))) END, w.n)
)
SELECT c.oracle_id, c.name,
       CASE WHEN c.folded = w.n THEN 0
            WHEN starts_with(c.folded, w.n) THEN 1
            ELSE 2 END AS closeness
FROM cards AS c, wanted AS w
WHERE w.n <> ''  -- a name this fold leaves nothing of (U+034F, which search_fold keeps) is in every name
  AND (contains(c.folded, w.n) OR c.oracle_id IN (SELECT oracle_id FROM printed))
ORDER BY closeness, c.name;
