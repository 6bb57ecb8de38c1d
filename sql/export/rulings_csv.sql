-- The rulings dataset for CSV, which has no lists: list columns become JSON arrays (text).
CREATE OR REPLACE TEMP VIEW export_rulings_csv AS
SELECT * REPLACE (
    CAST(to_json(oracle_ids) AS VARCHAR)   AS oracle_ids,
    CAST(to_json(card_names) AS VARCHAR)   AS card_names,
    CAST(to_json(translations) AS VARCHAR) AS translations,
    CAST(to_json(origins) AS VARCHAR)      AS origins
)
FROM export_rulings
ORDER BY ruling_id;
