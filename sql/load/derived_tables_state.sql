-- What the open of a writer fills again (pipeline/load/warehouse.py _fill_derived_tables): whether
-- ruling_card_names is empty where card_ruling is not, whether ruling_translation_key is empty
-- where ruling_translation is not (a warehouse made before those tables), and the comment on
-- ruling_translation_key, which names the fold its keys were made with (KEYS_FOLD).
SELECT NOT EXISTS (SELECT 1 FROM ruling_card_names) AND EXISTS (SELECT 1 FROM card_ruling) AS names,
       NOT EXISTS (SELECT 1 FROM ruling_translation_key) AND EXISTS (SELECT 1 FROM ruling_translation) AS keys,
       (SELECT comment FROM duckdb_tables()
        WHERE database_name = current_database() AND schema_name = 'main'
          AND table_name = 'ruling_translation_key') AS fold;
