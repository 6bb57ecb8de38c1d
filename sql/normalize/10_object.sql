-- Card objects (from search pages and bulk card files, staged in card_object by
-- pipeline/normalize/duck.py) with what printing_record and card_records decide about them:
-- their Oracle ids and, for an object those functions refuse, the reason (RecordError's text).
CREATE OR REPLACE TEMP VIEW n_object AS
WITH o AS (
    SELECT c.*, coalesce(list_filter(c.card_faces, lambda f: f IS NOT NULL), []) AS faces
    FROM card_object AS c
), ids AS (
    SELECT *,
        CASE WHEN oracle_id IS NOT NULL THEN [oracle_id]
             ELSE cf_distinct(list_filter(list_transform(faces, lambda f: f.oracle_id), lambda x: x IS NOT NULL))
        END AS oracle_ids
    FROM o
)
SELECT *,
    CASE
        WHEN id IS NULL OR len(oracle_ids) = 0 OR "set" IS NULL THEN 'printing without id, oracle_id or set'
        WHEN collector_number IS NULL THEN 'collector_number is not text: None'
        WHEN oracle_id IS NOT NULL AND coalesce(name, '') = '' THEN 'card without a name'
        WHEN oracle_id IS NULL AND len(list_filter(faces, lambda f, i:
                 f.oracle_id IS NOT NULL AND coalesce(f.name, '') = ''
                 AND list_position(list_transform(faces, lambda g: g.oracle_id), f.oracle_id) = i)) > 0
            THEN 'card face without a name'
    END AS skip_reason
FROM ids;
