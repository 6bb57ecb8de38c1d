-- Columns with a closed set of values hold only those values.
SELECT 'sync_run.mode' AS col, mode AS v FROM sync_run WHERE mode NOT IN ('live', 'offline')
UNION ALL SELECT 'sync_run.status', status FROM sync_run WHERE status NOT IN ('ok', 'no_changes')
UNION ALL SELECT 'raw_document.origin', origin FROM raw_document
    WHERE origin NOT IN ('scryfall-api', 'mtgwiki', 'listeblanche', 'scryfall-page')
UNION ALL SELECT 'ruling_sighting.origin', origin FROM ruling_sighting
    WHERE origin NOT IN ('scryfall-api', 'mtgwiki', 'listeblanche', 'scryfall-page')
UNION ALL SELECT 'card_ruling.position', CAST(position AS VARCHAR) FROM card_ruling WHERE position < 0;
