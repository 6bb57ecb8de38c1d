-- Cards whose name matches $name: exact (case-insensitive) first, then prefix, then substring.
SELECT oracle_id, name,
       CASE WHEN lower(name) = lower($name) THEN 0
            WHEN starts_with(lower(name), lower($name)) THEN 1
            ELSE 2 END AS closeness
FROM card
WHERE contains(lower(name), lower($name))
   OR oracle_id IN (SELECT oracle_id FROM printing WHERE contains(lower(printed_name), lower($name)))
ORDER BY closeness, name;
