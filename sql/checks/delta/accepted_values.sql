-- sql/checks/accepted_values.sql for a delta load ($run_id). A table the delta answers for by
-- scope holds its staged rows and the rows the last load checked; a links table merged whole
-- holds its staged rows: their staged rows are checked. The change events are checked in this
-- run's rows. A ruling is both live and retired only if this load retired it (removed_in_run)
-- or wrote it (stage_ruling). sync_run and raw_document are checked whole. Every other row
-- passed the check of the load that wrote it. retired_ruling is scanned whole (by both of its
-- checks), but its rows are only the rulings that went away.
SELECT 'sync_run.mode' AS col, mode AS v FROM sync_run WHERE mode NOT IN ('live', 'offline', 'ingest')
UNION ALL SELECT 'sync_run.status', status FROM sync_run WHERE status NOT IN ('ok', 'no_changes')
UNION ALL SELECT 'raw_document.origin', origin FROM raw_document
    WHERE origin NOT IN ('scryfall-api', 'mtgwiki', 'listeblanche', 'scryfall-page', 'comprehensive-rules')
UNION ALL SELECT 'ruling_sighting.origin', origin FROM stage_ruling_sighting
    WHERE origin NOT IN ('scryfall-api', 'mtgwiki', 'listeblanche', 'scryfall-page')
UNION ALL SELECT 'card_ruling.position', CAST(position AS VARCHAR) FROM stage_card_ruling WHERE position < 0
UNION ALL SELECT 'change_event.kind', kind FROM change_event
    WHERE run_id = $run_id
      AND kind NOT IN ('card_added', 'card_removed', 'card_changed', 'ruling_added', 'ruling_removed',
                       'ruling_reworded', 'ruling_text_changed', 'ruling_cards_changed', 'translation_added',
                       'translation_changed', 'translation_removed')
UNION ALL SELECT 'retired_ruling.still_present', t.ruling_id FROM retired_ruling AS t
    SEMI JOIN ruling USING (ruling_id) WHERE t.removed_in_run = $run_id
UNION ALL SELECT 'retired_ruling.still_present', t.ruling_id FROM retired_ruling AS t
    SEMI JOIN stage_ruling USING (ruling_id)
UNION ALL SELECT 'ruling_rule.method', method FROM stage_ruling_rule WHERE method NOT IN ('citation', 'keyword', 'glossary')
UNION ALL SELECT 'card_rule.method', method FROM stage_card_rule
    WHERE method NOT IN ('type_line', 'keyword', 'citation', 'wiki_quote', 'glossary');
