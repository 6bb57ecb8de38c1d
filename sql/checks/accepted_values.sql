-- Columns with a closed set of values hold only those values.
SELECT 'sync_run.mode' AS col, mode AS v FROM sync_run WHERE mode NOT IN ('live', 'offline', 'ingest')
UNION ALL SELECT 'sync_run.status', status FROM sync_run WHERE status NOT IN ('ok', 'no_changes')
UNION ALL SELECT 'raw_document.origin', origin FROM raw_document
    WHERE origin NOT IN ('scryfall-api', 'mtgwiki', 'listeblanche', 'scryfall-page', 'comprehensive-rules')
UNION ALL SELECT 'ruling_sighting.origin', origin FROM ruling_sighting
    WHERE origin NOT IN ('scryfall-api', 'mtgwiki', 'listeblanche', 'scryfall-page')
UNION ALL SELECT 'card_ruling.position', CAST(position AS VARCHAR) FROM card_ruling WHERE position < 0
UNION ALL SELECT 'change_event.kind', kind FROM change_event
    WHERE kind NOT IN ('card_added', 'card_removed', 'card_changed', 'ruling_added', 'ruling_removed',
                       'ruling_reworded', 'ruling_text_changed', 'ruling_cards_changed', 'translation_added',
                       'translation_changed', 'translation_removed')
UNION ALL SELECT 'retired_ruling.still_present', ruling_id FROM retired_ruling WHERE ruling_id IN (SELECT ruling_id FROM ruling)
UNION ALL SELECT 'ruling_rule.method', method FROM ruling_rule WHERE method NOT IN ('citation', 'keyword', 'glossary')
UNION ALL SELECT 'card_rule.method', method FROM card_rule
    WHERE method NOT IN ('type_line', 'keyword', 'citation', 'wiki_quote', 'glossary');
