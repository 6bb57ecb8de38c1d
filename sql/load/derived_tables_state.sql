-- What the open of a writer fills again (pipeline/load/warehouse.py _fill_derived_tables): whether
-- ruling_card_names is empty where card_ruling is not, whether ruling_translation_key is empty
-- where ruling_translation is not (a warehouse made before those tables), the comment on
-- ruling_translation_key, which names the fold its keys were made with (KEYS_FOLD), the count of
-- runs loaded, and the comment on ruling_card_names, which names the count of runs the derived
-- tables were brought up to date at (DERIVED_MARK; a casefile before it loads runs without them).
SELECT NOT EXISTS (SELECT 1 FROM ruling_card_names) AND EXISTS (SELECT 1 FROM card_ruling) AS names,
       NOT EXISTS (SELECT 1 FROM ruling_translation_key) AND EXISTS (SELECT 1 FROM ruling_translation) AS keys,
       (SELECT comment FROM duckdb_tables()
        WHERE database_name = current_database() AND schema_name = 'main'
          AND table_name = 'ruling_translation_key') AS fold,
       (SELECT count(*) FROM sync_run) AS runs,
       (SELECT comment FROM duckdb_tables()
        WHERE database_name = current_database() AND schema_name = 'main'
          AND table_name = 'ruling_card_names') AS mark;
