-- card: the Oracle card(s) each object is a copy of (card_records), then one row per Oracle id:
-- from the newest run, a printing that names the card itself (not a reversible card's face), an
-- English printing, the smallest Scryfall id; of an id read twice, the copy its printing row is
-- from (20_printing.sql: the latest) (as in build.py).
CREATE OR REPLACE TEMP TABLE n_card AS
WITH candidate AS (
    SELECT
        oracle_id, name,
        CASE WHEN mana_cost IS NOT NULL THEN mana_cost
             ELSE cf_joined(list_transform(faces, lambda f: f.mana_cost), ' // ') END AS mana_cost,
        cmc,
        CASE WHEN colors IS NOT NULL THEN colors ELSE cf_face_colors(faces) END AS colors,
        coalesce(color_identity, []) AS color_identity,
        coalesce(nullif(type_line, ''), cf_joined(list_transform(faces, lambda f: f.type_line), ' // ')) AS type_line,
        CASE WHEN oracle_text IS NOT NULL THEN oracle_text
             ELSE cf_joined(list_transform(faces, lambda f: f.oracle_text), chr(10) || '//' || chr(10)) END AS oracle_text,
        coalesce(nullif(layout, ''), 'normal') AS layout,
        run_id, true AS own, coalesce(nullif(lang, ''), 'en') = 'en' AS english, id, file_seq, ord
    FROM n_object
    WHERE skip_reason IS NULL AND oracle_id IS NOT NULL
    UNION ALL
    SELECT  -- reversible cards: no top-level oracle_id, each face names its own (and its layout)
        f.oracle_id, f.name, f.mana_cost, f.cmc, f.colors, coalesce(color_identity, []), f.type_line, f.oracle_text,
        coalesce(nullif(f.layout, ''), nullif(layout, ''), 'normal'), run_id, false,
        coalesce(nullif(lang, ''), 'en') = 'en', id, file_seq, ord
    FROM (
        SELECT *, unnest(faces) AS f, generate_subscripts(faces, 1) AS i
        FROM n_object
        WHERE skip_reason IS NULL AND oracle_id IS NULL
    )
    WHERE f.oracle_id IS NOT NULL AND list_position(list_transform(faces, lambda g: g.oracle_id), f.oracle_id) = i
)
SELECT oracle_id, name, mana_cost, cmc, colors, color_identity, type_line, oracle_text, layout
FROM candidate
QUALIFY row_number() OVER (PARTITION BY oracle_id ORDER BY run_id DESC, own DESC, english DESC, id ASC,
                                                    file_seq DESC, ord DESC) = 1;

-- The cards whose rulings are kept (a delta build adds the warehouse's unchanged cards).
CREATE OR REPLACE TEMP VIEW n_known_card AS SELECT oracle_id FROM n_card;
