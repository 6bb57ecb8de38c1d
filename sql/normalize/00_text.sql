-- Text helpers of pipeline/normalize/text.py as SQL macros, for the SQL build path.
-- A text is "plain" when it holds only ASCII and the quotes and dashes cf_fold lists: those
-- match_key folds that Unicode normalization leaves alone, but for the modifier letter
-- apostrophe U+02BC, which cf_fold does not list. On plain texts NFC and NFKC change nothing,
-- casefold is lower() and there is no invisible character to drop, so the macros below give
-- exactly what the Python functions give. Other texts (one with U+02BC too) go to
-- the Python functions themselves (py_* functions registered by pipeline/normalize/duck.py).
-- Whitespace is Python's: str.isspace() in the ASCII range is \t \n \x0b \x0c \r \x1c-\x1f and space.
-- Each costly step is guarded by a cheap test of whether it changes anything: replace() and a
-- regexp search are several times faster than translate() and a global regexp_replace.
-- A text is ASCII when its byte length is its length (strlen counts bytes, length characters):
-- cheaper than any regular expression. cf_fold changes only the quotes and dashes it lists, all
-- non-ASCII but the backtick, so on an ASCII text it has only backticks to fold, and a text is
-- plain when its folded copy is ASCII.
CREATE OR REPLACE TEMP MACRO cf_ascii(t) AS
    strlen(t) = length(t);
CREATE OR REPLACE TEMP MACRO cf_fold(t) AS
    CASE WHEN NOT cf_ascii(t)
         THEN replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(
              replace(replace(replace(replace(replace(t, '‘', ''''), '’', ''''), '‚', ''''), '‛', ''''), '′', ''''), '`', ''''),
              '“', '"'), '”', '"'), '„', '"'), '‟', '"'), '«', '"'), '»', '"'),
              '‐', '-'), '‒', '-'), '–', '-'), '—', '-'), '―', '-'), '−', '-')
         WHEN contains(t, '`') THEN replace(t, '`', '''')
         ELSE t END;
-- A run of hyphens is one (match_key: "--" typed for a dash, or a dash folded beside a hyphen).
CREATE OR REPLACE TEMP MACRO cf_hyphens(t) AS
    CASE WHEN contains(t, '--') THEN regexp_replace(t, '-{2,}', '-', 'g') ELSE t END;
CREATE OR REPLACE TEMP MACRO cf_plain(t) AS
    cf_ascii(cf_fold(t));
-- cf_unspaced(t): whether t has whitespace to squash (cf_squash); cf_spaces does both.
CREATE OR REPLACE TEMP MACRO cf_unspaced(t) AS
    regexp_matches(t, '[\t\n\x0B\f\r\x1C-\x1F]|  |^ | $');
CREATE OR REPLACE TEMP MACRO cf_squash(t) AS
    trim(regexp_replace(t, '[\t\n\x0B\f\r\x1C-\x1F ]+', ' ', 'g'));
CREATE OR REPLACE TEMP MACRO cf_spaces(t) AS
    CASE WHEN cf_unspaced(t) THEN cf_squash(t) ELSE t END;
CREATE OR REPLACE TEMP MACRO cf_symbols_plain(t) AS
    contains(t, '{') AND regexp_matches(t, '\{[^{}\t\n\x0B\f\r\x1C-\x1F ]{1,12}\}');
CREATE OR REPLACE TEMP MACRO cf_match_key(t) AS
    CASE WHEN cf_plain(t) THEN lower(cf_spaces(cf_hyphens(cf_fold(t)))) ELSE py_match_key(t) END;
CREATE OR REPLACE TEMP MACRO cf_canonical(t) AS
    CASE WHEN cf_plain(t) THEN cf_spaces(t) ELSE py_canonical_text(t) END;
CREATE OR REPLACE TEMP MACRO cf_has_symbols(t) AS
    CASE WHEN cf_plain(t) THEN cf_symbols_plain(t) ELSE py_has_symbols(t) END;
-- symbol_free_key of a match key (where every run of whitespace is already one space, none at the ends):
-- a symbol leaves nothing in its place ('"{t}"' gives '""'), then one space, none before closing punctuation.
CREATE OR REPLACE TEMP MACRO cf_symbol_free_key(k) AS
    CASE WHEN contains(k, '{') OR regexp_matches(k, ' [.,;:!?)\]]')
         THEN regexp_replace(trim(regexp_replace(regexp_replace(k, '\{[^{} ]{1,12}\}', '', 'g'), ' +', ' ', 'g')),
                             ' +([.,;:!?)\]])', '\1', 'g')
         ELSE k END;
CREATE OR REPLACE TEMP MACRO cf_typographic_score(c) AS
    (CASE WHEN cf_has_symbols(c) THEN 2 ELSE 0 END) + (CASE WHEN regexp_matches(c, '[’“”]') THEN 1 ELSE 0 END);
-- Helpers of pipeline/normalize/scryfall.py.
CREATE OR REPLACE TEMP MACRO cf_joined(parts, sep) AS
    CASE WHEN len(list_filter(parts, lambda x: x IS NOT NULL)) = 0 THEN NULL
         ELSE array_to_string(list_filter(parts, lambda x: x IS NOT NULL), sep) END;
CREATE OR REPLACE TEMP MACRO cf_distinct(l) AS
    list_filter(l, lambda x, i: list_position(l, x) = i);
CREATE OR REPLACE TEMP MACRO cf_face_colors(faces) AS
    CASE WHEN len(list_filter(faces, lambda f: f.colors IS NOT NULL)) = 0 THEN NULL
         ELSE list_transform(list_sort(list_transform(
                  list_distinct(flatten(list_transform(faces, lambda f: coalesce(f.colors, [])))),
                  lambda c: {'k': CASE WHEN c IN ('W', 'U', 'B', 'R', 'G') THEN strpos('WUBRG', c) ELSE 100 END, 'c': c})),
              lambda x: x.c) END;
-- An ISO date that is a day of the calendar ("2024-02-30" is none; nor is year 0, which Python's
-- dates do not have), as scryfall.py's _iso_date.
CREATE OR REPLACE TEMP MACRO cf_iso_date(d) AS
    CASE WHEN regexp_full_match(d, '[0-9]{4}-[0-9]{2}-[0-9]{2}') AND NOT starts_with(d, '0000')
              AND try_cast(d AS DATE) IS NOT NULL THEN d END;
-- Python's str.strip() of a text leaves nothing (every Unicode space of str.isspace()).
CREATE OR REPLACE TEMP MACRO cf_blank(t) AS
    regexp_full_match(t, '[\t\n\x0B\f\r\x1C-\x1F \x{85}\x{A0}\x{1680}\x{2000}-\x{200A}\x{2028}\x{2029}\x{202F}\x{205F}\x{3000}]*');
-- A sighting's id (build.sighting_id_for): its place (the document, or a bulk view's rulings
-- file), card, position and language.
CREATE OR REPLACE TEMP MACRO cf_sighting_id(place, oracle_id, position, lang) AS
    's' || left(sha256(place || chr(31) || coalesce(oracle_id, '') || chr(31) || CAST(position AS VARCHAR)
                       || chr(31) || lang), 15);
