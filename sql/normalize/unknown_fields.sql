-- The fields of the search pages' card objects ($files) that casefile does not read ($read: the
-- names it reads, CARD_FIELDS_READ of pipeline/normalize/scryfall.py), with the number of objects
-- that carry each, as the Python reader counts them: a change of Scryfall's format shows in a
-- sync's summary whichever path built it.
SELECT key, count(*) AS n
FROM (
    SELECT unnest(json_keys(item)) AS key
    FROM (SELECT unnest(data) AS item FROM read_json($files, columns = {'data': 'JSON[]'}, format = 'unstructured'))
    WHERE json_type(item) = 'OBJECT'
)
WHERE NOT list_contains($read, key)
GROUP BY key;
