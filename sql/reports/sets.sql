-- Report "sets": one row per set of the warehouse's printings.
-- Cards are Oracle cards (distinct oracle_id), never translated printings. A card printed at two
-- rarities in one set counts under both rarities. Colors come from card.colors: no color is
-- colorless, one color counts under it, two or more count as multicolored; unknown (NULL) colors
-- count in no color column. Figures are rounded half up, as the colors report's shares
-- (pipeline/report.py wiki_share): counts in integer arithmetic, the mean mana value as a decimal
-- (a float's 2.675 is 2.67499..., which round() takes down).
WITH set_card AS (
    SELECT DISTINCT set_code, oracle_id FROM printing
),
card_rulings AS (
    -- color: the column a card counts under, worked out once per card (NULL: in none)
    SELECT c.oracle_id, c.cmc, coalesce(n.rulings, 0) AS rulings,
           CASE WHEN len(c.colors) = 0 THEN 'colorless' WHEN len(c.colors) >= 2 THEN 'multicolored'
                ELSE c.colors[1] END AS color
    FROM card AS c
    LEFT JOIN (SELECT oracle_id, count(*) AS rulings FROM card_ruling GROUP BY oracle_id) AS n USING (oracle_id)
),
per_set AS (
    SELECT sc.set_code,
           count(*)                                                AS cards,
           count(*) FILTER (WHERE k.color = 'colorless')           AS colorless,
           count(*) FILTER (WHERE k.color = 'W')                   AS white,
           count(*) FILTER (WHERE k.color = 'U')                   AS blue,
           count(*) FILTER (WHERE k.color = 'B')                   AS black,
           count(*) FILTER (WHERE k.color = 'R')                   AS red,
           count(*) FILTER (WHERE k.color = 'G')                   AS green,
           count(*) FILTER (WHERE k.color = 'multicolored')        AS multicolored,
           avg(k.cmc)                                              AS avg_mana_value,
           sum(k.rulings)                                          AS rulings,
           count(*) FILTER (WHERE k.rulings > 0)                   AS with_rulings
    FROM set_card AS sc JOIN card_rulings AS k USING (oracle_id)
    GROUP BY sc.set_code
),
per_set_printing AS (
    SELECT set_code, count(*) AS printings, count(DISTINCT lang) AS languages
    FROM printing
    GROUP BY set_code
),
-- Cards per rarity: each (set, card, rarity) once, then counted.
per_set_rarity AS (
    SELECT set_code,
           count(*) FILTER (WHERE rarity = 'common')   AS common,
           count(*) FILTER (WHERE rarity = 'uncommon') AS uncommon,
           count(*) FILTER (WHERE rarity = 'rare')     AS rare,
           count(*) FILTER (WHERE rarity = 'mythic')   AS mythic,
           count(*) FILTER (WHERE rarity = 'special')  AS special,
           count(*) FILTER (WHERE rarity = 'bonus')    AS bonus
    FROM (SELECT DISTINCT set_code, oracle_id, rarity FROM printing)
    GROUP BY set_code
),
-- The share of a set's distinct rulings that have a French translation (ruling_translation),
-- worked out for the sets with a translated ruling only: the others show 0.0 either way.
french AS (
    SELECT DISTINCT ruling_id FROM ruling_translation WHERE lang = 'fr'
),
french_set AS (
    SELECT DISTINCT sc.set_code
    FROM set_card AS sc JOIN (SELECT * FROM card_ruling SEMI JOIN french USING (ruling_id)) AS cr USING (oracle_id)
),
per_set_ruling AS (
    SELECT sr.set_code,
           count(*)                                          AS rulings,
           count(*) FILTER (WHERE t.ruling_id IS NOT NULL)   AS rulings_fr
    FROM (SELECT DISTINCT sc.set_code, cr.ruling_id
          FROM (SELECT * FROM set_card SEMI JOIN french_set USING (set_code)) AS sc
          JOIN card_ruling AS cr USING (oracle_id)) AS sr
    LEFT JOIN french AS t USING (ruling_id)
    GROUP BY sr.set_code
)
SELECT s.set_code                                   AS "set",
       cs.name                                      AS set_name,
       s.cards,
       p.printings,
       p.languages,
       y.common, y.uncommon, y.rare, y.mythic, y.special, y.bonus,
       s.colorless, s.white, s.blue, s.black, s.red, s.green, s.multicolored,
       CAST(round(CAST(s.avg_mana_value AS DECIMAL(18, 6)), 2) AS DOUBLE) AS avg_mana_value,
       ((200 * s.rulings + s.cards) // (2 * s.cards)) / 100                   AS rulings_per_card,
       ((2000 * s.with_rulings + s.cards) // (2 * s.cards)) / 10              AS cards_with_rulings_pct,
       coalesce(((2000 * r.rulings_fr + r.rulings) // (2 * r.rulings)) / 10, 0.0) AS rulings_fr_pct
FROM per_set AS s
JOIN per_set_printing AS p USING (set_code)
JOIN per_set_rarity AS y USING (set_code)
LEFT JOIN card_set AS cs USING (set_code)
LEFT JOIN per_set_ruling AS r USING (set_code)
ORDER BY s.set_code;
