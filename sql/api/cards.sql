-- api.cards(): one row per Oracle card, with its printings, languages, sets and rulings counted.
WITH printings AS (
    SELECT oracle_id,
           count(*)                                     AS printings,
           list(DISTINCT lang ORDER BY lang)            AS languages,
           list(DISTINCT set_code ORDER BY set_code)    AS sets
    FROM printing
    GROUP BY oracle_id
),
rulings AS (
    SELECT oracle_id, count(*) AS rulings FROM card_ruling GROUP BY oracle_id
)
SELECT c.oracle_id, c.name, c.mana_cost, c.cmc, c.colors, c.color_identity, c.type_line,
       c.oracle_text, c.layout,
       coalesce(p.printings, 0)   AS printings,
       coalesce(p.languages, [])  AS languages,
       coalesce(p.sets, [])       AS sets,
       coalesce(r.rulings, 0)     AS rulings
FROM card AS c
LEFT JOIN printings AS p USING (oracle_id)
LEFT JOIN rulings AS r USING (oracle_id)
ORDER BY c.name, c.oracle_id;
