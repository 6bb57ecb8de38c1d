-- api.cards(): one row per Oracle card, with its printings, languages, sets and rulings counted.
-- Every order says ASC: DuckDB's default_order, a setting a notebook's own connection may change
-- for the database it shares with the API's, decides an order that does not.
WITH printings AS (
    SELECT oracle_id,
           count(*)                                     AS printings,
           list(DISTINCT lang ORDER BY lang ASC)        AS languages,
           list(DISTINCT set_code ORDER BY set_code ASC) AS sets
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
ORDER BY c.name ASC, c.oracle_id ASC;
