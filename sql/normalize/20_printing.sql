-- printing: one row per Scryfall id; the latest view, document and position win (as in build.py).
CREATE OR REPLACE TEMP TABLE n_printing AS
SELECT
    id AS scryfall_id,
    oracle_ids[1] AS oracle_id,
    upper("set") AS set_code,
    collector_number,
    coalesce(nullif(lang, ''), 'en') AS lang,
    rarity,
    cf_iso_date(released_at) AS released_at,
    coalesce(nullif(printed_name, ''), cf_joined(list_transform(faces, lambda f: f.printed_name), ' // ')) AS printed_name,
    coalesce(nullif(printed_text, ''), cf_joined(list_transform(faces, lambda f: f.printed_text), chr(10) || '//' || chr(10))) AS printed_text,
    digital,
    scryfall_uri,
    run_id,
    file_seq,
    ord
FROM n_object
WHERE skip_reason IS NULL
QUALIFY row_number() OVER (PARTITION BY id ORDER BY file_seq DESC, ord DESC) = 1;
