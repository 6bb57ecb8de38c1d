-- printing: one row per Scryfall id; the latest view, document and position win (as in build.py).
-- Ids seen more than once are rare (a card on two search pages, two views): only their objects
-- go through the window that picks the latest.
CREATE OR REPLACE TEMP TABLE n_printing AS
WITH kept AS (
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
), repeated AS (
    SELECT scryfall_id FROM kept GROUP BY scryfall_id HAVING count(*) > 1
)
SELECT * FROM kept WHERE scryfall_id NOT IN (SELECT scryfall_id FROM repeated)
UNION ALL
SELECT * FROM kept WHERE scryfall_id IN (SELECT scryfall_id FROM repeated)
QUALIFY row_number() OVER (PARTITION BY scryfall_id ORDER BY file_seq DESC, ord DESC) = 1;
