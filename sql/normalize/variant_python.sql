-- The text features of the variants that are not plain (55_variant.sql), from the Python
-- functions themselves (py_* functions registered by pipeline/normalize/duck.py).
UPDATE n_variant SET
    key = py_match_key(text_as_seen),
    canon = py_canonical_text(text_as_seen),
    has_symbols = py_has_symbols(text_as_seen)
WHERE NOT plain;

UPDATE n_variant SET
    score = (CASE WHEN has_symbols THEN 2 ELSE 0 END)
            + (CASE WHEN contains(canon, '’') OR contains(canon, '“') OR contains(canon, '”') THEN 1 ELSE 0 END)
WHERE NOT plain;
