-- Report "colors": the MTG wiki's Statistics box for a card type, from card.colors.
-- Each Oracle card counts once: colorless (no color), under its one color, or multicolored
-- (two or more colors). Cards with unknown colors (NULL) count in the total only.
SELECT count(*)                                      AS cards,
       count(*) FILTER (WHERE len(colors) = 0)       AS colorless,
       count(*) FILTER (WHERE colors = ['W'])        AS white,
       count(*) FILTER (WHERE colors = ['U'])        AS blue,
       count(*) FILTER (WHERE colors = ['B'])        AS black,
       count(*) FILTER (WHERE colors = ['R'])        AS red,
       count(*) FILTER (WHERE colors = ['G'])        AS green,
       count(*) FILTER (WHERE len(colors) >= 2)      AS multicolored
FROM card;
