-- Cards whose name matches $name: exact (case-insensitive) first, then prefix, then substring;
-- or the card whose Oracle id $name is (how to name one of two cards of the same name).
SELECT oracle_id, name,
       CASE WHEN oracle_id = lower($name) OR lower(name) = lower($name) THEN 0
            WHEN starts_with(lower(name), lower($name)) THEN 1
            ELSE 2 END AS closeness
FROM card
WHERE contains(lower(name), lower($name)) OR oracle_id = lower($name)
   OR oracle_id IN (SELECT oracle_id FROM printing WHERE contains(lower(printed_name), lower($name)))
ORDER BY closeness, name;
