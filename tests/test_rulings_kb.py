"""The rulings knowledge base on the bundled sample: every copy reconciled, provenance kept."""

import json
import re
import shutil

import duckdb
import pytest

from pipeline.cli import main
from pipeline.load.warehouse import open_writer
from pipeline.lookup import search
from pipeline.normalize.text import FOLD_PARAMS
from pipeline.resources import read_sql

from conftest import ROOT
from support.runs import EditableRun
from support.warehouse_state import query as rows, warehouse_of

VISAGE = "Case of the Shifting Visage"
WIKI_OWN = [
    "The first ability of a Case is always active.",
    "To solve a Case, its \"to solve\" condition must be true both as",
    "As long as it's solved, its \"to solve\" ability won't trigger again.",
    "A Case remains solved even if another player gains control of it.",
    "An unsolved Case will check if it has been solved on each turn it is in play,",
]


def test_shifting_visage_has_16_rulings_each_seen_once_per_origin(sample_warehouse):
    per_ruling = rows(sample_warehouse, """
        SELECT cr.ruling_id,
               count(*) FILTER (s.origin = 'scryfall-api'),
               count(*) FILTER (s.origin = 'scryfall-page'),
               count(*) FILTER (s.origin = 'listeblanche')
        FROM card c JOIN card_ruling cr USING (oracle_id)
        JOIN ruling_sighting s ON s.ruling_id = cr.ruling_id AND s.oracle_id = c.oracle_id AND s.lang = 'en'
        WHERE c.name = ? GROUP BY ALL""", [VISAGE])
    assert len(per_ruling) == 16
    assert all(tuple(r[1:]) == (1, 1, 1) for r in per_ruling), per_ruling


def test_every_card_lists_its_rulings_in_the_order_of_its_scryfall_page(sample_warehouse):
    # The API and the card page give one order (Scryfall's); the card's list follows it.
    out_of_order = rows(sample_warehouse, """
        SELECT c.name, cr.position, p.position
        FROM card c JOIN card_ruling cr USING (oracle_id)
        JOIN ruling_sighting p ON p.ruling_id = cr.ruling_id AND p.oracle_id = cr.oracle_id
                              AND p.origin = 'scryfall-page'
        WHERE cr.position <> p.position""")
    assert out_of_order == []
    visage_first = rows(sample_warehouse, """
        SELECT r.text FROM card c JOIN card_ruling cr USING (oracle_id) JOIN ruling r USING (ruling_id)
        WHERE c.name = ? AND cr.position = 0""", [VISAGE])
    assert visage_first[0][0].startswith("\u201cTo Solve \u2014 [condition]\u201d means")


def test_the_page_copy_that_lost_its_symbol_is_attached_and_flagged(sample_warehouse):
    lost = rows(sample_warehouse, """
        SELECT s.text_as_seen, r.text, s.flags FROM ruling_sighting s JOIN ruling r USING (ruling_id)
        JOIN card c ON c.oracle_id = s.oracle_id
        WHERE s.origin = 'scryfall-page' AND c.name = ? AND list_contains(s.flags, 'symbols_lost')""", [VISAGE])
    assert len(lost) == 1
    seen, ruling, flags = lost[0]
    assert "cost less to cast" in seen and "cost {1} less to cast" in ruling


def test_a_ruling_served_with_a_trailing_space_is_stored_tidied_and_seen_as_served(sample_warehouse):
    # Scryfall serves the "meaning of solved" ruling with a space at its end; the ruling's text is
    # tidied, the API's sightings keep the text as served.
    seen = rows(sample_warehouse, """
        SELECT DISTINCT r.text, s.text_as_seen FROM ruling r JOIN ruling_sighting s USING (ruling_id)
        WHERE s.origin = 'scryfall-api' AND s.text_as_seen LIKE '% '""")
    assert seen, "the sample's API rulings hold a text served with a trailing space"
    # (a ruling whose best copy has curly quotes is seen with straight ones on some cards)
    assert any(text == as_seen.rstrip() for text, as_seen in seen), seen
    assert rows(sample_warehouse, "SELECT count(*) FROM ruling WHERE text <> trim(text)") == [(0,)]


def test_wiki_rulings_attach_to_wotc_rulings_or_stand_as_mtgwiki(sample_warehouse):
    wiki = rows(sample_warehouse, """
        SELECT r.source, r.published_at, r.text FROM ruling_sighting s JOIN ruling r USING (ruling_id)
        WHERE s.origin = 'mtgwiki' ORDER BY s.position""")
    assert len(wiki) == 14
    attached = [w for w in wiki if w[0] == "wotc"]
    own = [w for w in wiki if w[0] == "mtgwiki"]
    assert len(attached) == 9 and all(str(w[1]) == "2024-02-02" for w in attached)
    assert len(own) == 5 and all(w[1] is None for w in own)
    for start, (_, _, text) in zip(WIKI_OWN, own):
        assert text.startswith(start)
    assert rows(sample_warehouse, "SELECT count(*) FROM ruling WHERE source = 'mtgwiki'") == [(5,)]


def test_one_row_per_distinct_ruling(sample_warehouse):
    assert rows(sample_warehouse, "SELECT count(*) FROM ruling") == [(45,)]  # 40 WotC + 5 wiki-only
    assert rows(sample_warehouse, "SELECT count(*) FROM card_ruling") == [(153,)]
    assert rows(sample_warehouse, "SELECT count(DISTINCT match_key) FROM ruling") == [(45,)]


def test_listeblanche_copies_are_sightings_dated_and_sourced(sample_warehouse):
    lb = rows(sample_warehouse, """
        SELECT count(*), count(DISTINCT ruling_id), min(date_as_seen), max(date_as_seen), any_value(source_as_seen)
        FROM ruling_sighting WHERE origin = 'listeblanche' AND lang = 'en'""")
    assert lb == [(153, 40, lb[0][2], lb[0][2], "wotc")]
    assert str(lb[0][2]) == "2024-02-02"


def test_card_command_output(sample_warehouse, capsys, golden):
    assert main(["--data-dir", str(sample_warehouse), "card", VISAGE]) == 0
    out = capsys.readouterr().out
    assert out.count(" · wotc · seen on ") == 16
    golden("card_case-of-the-shifting-visage.txt", out)


def test_search_command_output(sample_warehouse, capsys, golden):
    assert main(["--data-dir", str(sample_warehouse), "search", "copiable values"]) == 0
    out = capsys.readouterr().out
    golden("search_copiable-values.txt", out)
    assert main(["--data-dir", str(sample_warehouse), "search", "COPIABLE valués", "--format", "json"]) == 0
    [hit] = json.loads(capsys.readouterr().out)
    assert hit["text"].startswith("Being solved is not part of a permanent’s copiable values.")
    assert hit["cards"].count("Case of the") == 13


def test_search_ranks_the_phrase_first_and_folds_quotes(sample_warehouse, capsys):
    assert main(["--data-dir", str(sample_warehouse), "search", "to solve", "--format", "json"]) == 0
    hits = json.loads(capsys.readouterr().out)
    assert len(hits) > 3 and [h["rank"] for h in hits] == list(range(1, len(hits) + 1))
    assert "to solve" in hits[0]["text"].lower().replace("“", "").replace("”", "")
    assert main(["--data-dir", str(sample_warehouse), "search", "don't lose", "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)[0]["text"] == "Cases don’t lose their other abilities when they become solved."


def test_card_lookup_errors(sample_warehouse, capsys):
    assert main(["--data-dir", str(sample_warehouse), "card", "Case of the"]) == 2
    assert "matches several cards" in capsys.readouterr().err
    assert main(["--data-dir", str(sample_warehouse), "card", "Llanowar Elves"]) == 2
    assert "no card named" in capsys.readouterr().err
    assert main(["--data-dir", str(sample_warehouse), "card", "shifting visage", "--format", "csv"]) == 0
    assert capsys.readouterr().out.startswith("n,published_at,source,text,seen_on,translations,rules,ruling_id\n1,2024-02-02,wotc,")


@pytest.mark.parametrize("name,expected", [
    ("Case of the Gorgon’s Kiss", "Case of the Gorgon's Kiss"),  # the apostrophe as the rulings print it
    ("gorgon‘s kiss", "Case of the Gorgon's Kiss"),
    ("gorgon´s kiss", "Case of the Gorgon's Kiss"),  # the acute accent a German keyboard offers for one
    ("gorgon`s kiss", "Case of the Gorgon's Kiss"),  # as search folds them (normalize/text.py _QUOTES)
    ("Affaire du Pacte fracasse", "Case of the Shattered Pact"),  # its French name, typed without the accent
    ("FALCAO FURTADO", "Case of the Filched Falcon"),  # part of its Portuguese name, "Caso do Falcão Furtado"
    ("Case of the Shattered Pact", "Case of the Shattered Pact"),
    ("Bur\u00adning Masks", "Case of the Burning Masks"),  # pasted from a web page: a soft hyphen inside
    ("Case of the\u200b Filched Falcon", "Case of the Filched Falcon"),  # and a zero-width space
    ("Case\u00a0of the Gorgon's Kiss", "Case of the Gorgon's Kiss"),  # a no-break space
    ("\uff23\uff21\uff33\uff25 of the gorgon", "Case of the Gorgon's Kiss"),  # full-width letters
])
def test_card_names_match_whatever_the_quotes_accents_and_case(sample_warehouse, capsys, name, expected):
    assert main(["--data-dir", str(sample_warehouse), "card", name]) == 0
    assert capsys.readouterr().out.startswith(expected + "  ")


@pytest.mark.parametrize("name", ["", " ", "\u200b", "\u00ad", "\ufeff \u200d", "\u0301"])
def test_a_name_that_folds_to_nothing_is_refused_as_an_empty_one(sample_warehouse, capsys, name):
    """Only invisible characters (a zero-width space, a soft hyphen) or a lone accent fold to
    nothing, which every name contains: it "matched several cards", all 15, where `card ""` says
    "give a card name" (and `search` "give at least one word")."""
    assert main(["--data-dir", str(sample_warehouse), "card", name]) == 2
    assert capsys.readouterr().err == "casefile: error: give a card name\n"


@pytest.mark.parametrize("name", ["\u034f", "\u0345", "\u0903"])
def test_a_name_the_lookup_s_own_fold_leaves_nothing_of_matches_no_card(sample_warehouse, capsys, name):
    """Characters the search's fold keeps but the lookup's SQL fold takes out (a combining grapheme
    joiner, a combining ypogegrammeni, a spacing mark) matched every card."""
    assert main(["--data-dir", str(sample_warehouse), "card", name]) == 2
    err = capsys.readouterr().err
    assert err.startswith("casefile: error: no card named") and "several" not in err


def test_a_name_matching_more_cards_than_are_listed_says_how_many_more(sample_warehouse, capsys):
    """"Case of the" matches the 15 Cases: the message names the first ones and says how many it
    leaves out, rather than passing ten names for all of them."""
    assert main(["--data-dir", str(sample_warehouse), "card", "Case of the"]) == 2
    err = capsys.readouterr().err
    shown = err.count("Case of the ")  # each name listed; the one asked for is quoted: 'Case of the'
    assert 0 < shown < 15 and f"and {15 - shown} more" in err


def test_a_card_is_found_by_its_oracle_id_and_a_shared_name_lists_the_ids(sample_warehouse, tmp_path, capsys):
    """Constructed: a copy of the sample warehouse given a second card named Case of the Locked
    Hothouse (as Un-sets give several Oracle cards one name). The name alone then matches both,
    each listed with its Oracle id, and either is shown when asked for by its id."""
    data = tmp_path / "data"
    shutil.copytree(sample_warehouse, data)
    con = duckdb.connect(str(data / "warehouse" / "casefile.duckdb"))
    [(real,)] = con.execute("SELECT oracle_id FROM card WHERE name = 'Case of the Locked Hothouse'").fetchall()
    twin = "00000000-0000-4000-8000-000000000001"
    con.execute("INSERT INTO card SELECT * REPLACE ($twin AS oracle_id) FROM card WHERE oracle_id = $real",
                {"twin": twin, "real": real})
    con.close()
    assert main(["--data-dir", str(data), "card", "case of the locked hothouse"]) == 2
    err = capsys.readouterr().err
    assert f"Case of the Locked Hothouse ({real})" in err and f"Case of the Locked Hothouse ({twin})" in err
    assert "give the Oracle id" in err
    for oracle_id in (real, twin.upper()):
        assert main(["--data-dir", str(data), "card", oracle_id, "--format", "json"]) == 0
        capsys.readouterr()
    assert main(["--data-dir", str(data), "card", real]) == 0
    assert capsys.readouterr().out.startswith("Case of the Locked Hothouse  ")


def test_a_long_name_that_matches_nothing_is_cut_in_the_message(sample_warehouse, capsys):
    assert main(["--data-dir", str(sample_warehouse), "card", "x" * 5000]) == 2
    err = capsys.readouterr().err
    assert "no card named 'xxx" in err and len(err) < 300


def _state(data):
    tables = ["card", "printing", "ruling", "card_ruling", "ruling_sighting", "ruling_translation", "sync_run"]
    return {t: rows(data, f"SELECT * FROM {t} ORDER BY ALL") for t in tables}


def _sample_with_page(tmp_path, origin: str):
    """A copy of the sample run, and the path in it of Case of the Shifting Visage's ``origin`` page."""
    run = tmp_path / "broken-run"
    shutil.copytree(ROOT / "data" / "raw" / "sample", run)
    [entry] = [e for e in map(json.loads, (run / "manifest.jsonl").read_text().splitlines())
               if e["origin"] == origin and "shifting-visage" in e["url"]]
    return run, run / entry["path"]


def test_a_page_whose_layout_changed_fails_the_run_and_changes_nothing(data_dir, tmp_path, capsys):
    assert main(["--data-dir", str(data_dir), "sync", "--offline"]) == 0
    before = _state(data_dir)
    broken, page = _sample_with_page(tmp_path, "listeblanche")
    # the site moved the rulings' text out of the blocks: the date lines remain, the text is gone
    page.write_text(re.sub(r"<blockquote.*?</blockquote>", "", page.read_text("utf-8"), flags=re.S), "utf-8")
    capsys.readouterr()
    assert main(["--data-dir", str(data_dir), "sync", "--offline", str(broken)]) == 65
    err = capsys.readouterr().err
    assert "https://listeblanche.fr/carte/mkc/case-of-the-shifting-visage-mkc-19" in err
    assert _state(data_dir) == before
    runs = sorted(p for p in (data_dir / "raw").iterdir() if p.is_dir())
    assert json.loads((runs[-1] / "_FAILED").read_text())["status"] == "rejected"
    # the rejected run stays out of later loads: the next sync loads cleanly
    assert main(["--data-dir", str(data_dir), "sync", "--offline"]) == 0
    assert "no changes" in capsys.readouterr().out


def test_a_damaged_file_of_a_run_no_build_reads_still_lets_a_broken_run_be_rejected(data_dir, tmp_path, capsys):
    """Two syncs of the sample, the first one's API page then deleted by hand: that run is
    superseded (no build reads it). A third run whose listeblanche page lost its rulings is
    rejected for that page, not held back for the first run's file."""
    assert main(["--data-dir", str(data_dir), "-q", "sync", "--offline"]) == 0
    assert main(["--data-dir", str(data_dir), "-q", "sync", "--offline"]) == 0
    first = sorted(p for p in (data_dir / "raw").iterdir() if p.is_dir())[0]
    (first / "docs" / "scryfall-api" / "00001-search.json").unlink()
    broken, page = _sample_with_page(tmp_path, "listeblanche")
    page.write_text(re.sub(r"<blockquote.*?</blockquote>", "", page.read_text("utf-8"), flags=re.S), "utf-8")
    capsys.readouterr()
    assert main(["--data-dir", str(data_dir), "sync", "--offline", str(broken)]) == 65
    err = capsys.readouterr().err
    assert "not rejected" not in err and first.name not in err
    [newest] = sorted(p for p in (data_dir / "raw").iterdir() if p.is_dir())[-1:]
    assert json.loads((newest / "_FAILED").read_text())["status"] == "rejected"


def test_a_scryfall_page_of_a_card_with_rulings_that_shows_none_fails_the_run(data_dir, tmp_path, capsys):
    """casefile fetches the scryfall.com page of a card only when the API gives it rulings: a page
    whose rulings heading is gone (constructed: renamed in a copy of the sample's page) has changed
    its layout, and must not load as a card without page copies."""
    assert main(["--data-dir", str(data_dir), "sync", "--offline"]) == 0
    before = _state(data_dir)
    broken, page = _sample_with_page(tmp_path, "scryfall-page")
    text = page.read_text("utf-8")
    assert "Notes and Rules Information for" in text
    page.write_text(text.replace("Notes and Rules Information for", "Rulings of"), "utf-8")
    capsys.readouterr()
    assert main(["--data-dir", str(data_dir), "sync", "--offline", str(broken)]) == 65
    err = capsys.readouterr().err
    assert "case-of-the-shifting-visage" in err and "layout changed" in err
    assert _state(data_dir) == before


def _with_french(tmp_path, name="with-french", marker=lambda i: f"[FR {i}]"):
    """A copy of the sample whose Shifting Visage listeblanche page carries marker French copies:
    ``marker(i)`` after the i-th English ruling, none where it gives None."""
    run = EditableRun(tmp_path / name)
    run.add_french("shifting-visage", marker)
    return run.path


def test_each_english_ruling_on_a_listeblanche_page_gets_one_french_translation(data_dir, tmp_path, capsys):
    """No recorded page holds French ruling text, so this test gives one page of a copy of the
    sample French copies that are plain markers ("[FR 0]", …), placed where the site puts its
    translation: after each English original. Test-only: never in the bundled sample."""
    run = _with_french(tmp_path)
    assert main(["--data-dir", str(data_dir), "sync", "--offline", str(run)]) == 0
    translations = rows(data_dir, """
        SELECT t.ruling_id, t.lang, t.origin, t.text, t.machine_translated FROM ruling_translation t ORDER BY t.text""")
    english = rows(data_dir, """SELECT DISTINCT s.ruling_id FROM ruling_sighting s
                                WHERE s.origin = 'listeblanche' AND s.lang = 'en' AND s.doc_id = (
                                    SELECT doc_id FROM ruling_sighting WHERE lang = 'fr' LIMIT 1)""")
    assert len(english) == 16 and len(translations) == 16
    assert {t[0] for t in translations} == {e[0] for e in english}  # exactly one per English ruling
    assert all(t[1:3] == ("fr", "listeblanche") and t[4] is True for t in translations)
    assert rows(data_dir, "SELECT count(*) FROM ruling") == [(45,)]  # no ruling counted twice
    capsys.readouterr()
    assert main(["--data-dir", str(data_dir), "card", VISAGE]) == 0
    assert "fr (listeblanche, machine translation): [FR " in capsys.readouterr().out


def test_a_warehouse_whose_translation_keys_were_folded_otherwise_gets_them_again_at_its_next_load(data_dir,
                                                                                                   tmp_path):
    """A load derives the keys of the translations it changes; a warehouse whose keys an earlier
    casefile folded (here: made so by hand, as SQL alone folded them, its table's comment gone)
    kept them through syncs that changed no translation, and "ﬁn" could not be found as "fin"."""
    run = _with_french(tmp_path, marker=lambda i: "La ﬁn du tour [FR 0]" if i == 0 else None)
    assert main(["--data-dir", str(data_dir), "-q", "sync", "--offline", str(run)]) == 0
    db = data_dir / "warehouse" / "casefile.duckdb"

    def found() -> list:
        con = duckdb.connect(str(db), read_only=True)
        try:
            return [row[-1] for row in search(con, "fin du tour")[1]]
        finally:
            con.close()

    [ruling] = found()
    con = duckdb.connect(str(db))
    con.execute("UPDATE ruling_translation_key SET key = 'la ﬁn du tour [fr 0]'")
    con.execute("COMMENT ON TABLE ruling_translation_key IS NULL")
    con.close()
    assert found() == []
    assert main(["--data-dir", str(data_dir), "-q", "sync", "--offline", str(run)]) == 0  # no translation changed
    assert found() == [ruling]
    assert rows(data_dir, "SELECT count(*) FROM ruling_translation_key") == [(1,)]


def test_translations_are_the_same_when_the_sql_path_builds_the_run(data_dir, tmp_path, monkeypatch, capsys):
    """The SQL path hands page copies, French ones included, to the Python reconciliation: the
    same translations as the Python path (the marker-French copy of the sample; the SQL path's
    threshold lowered so that the small run takes it)."""
    import pipeline.build

    run = _with_french(tmp_path)
    assert main(["--data-dir", str(data_dir), "-v", "sync", "--offline", str(run)]) == 0
    assert "building in Python" in capsys.readouterr().err
    monkeypatch.setattr(pipeline.build, "SQL_PATH_MIN_BYTES", 1)
    sql_built = tmp_path / "sql-built"
    assert main(["--data-dir", str(sql_built), "-v", "sync", "--offline", str(run)]) == 0
    assert "building in Python" not in capsys.readouterr().err
    python_state, sql_state = _state(data_dir), _state(sql_built)
    for table in python_state:
        if table != "sync_run":
            assert sql_state[table] == python_state[table], table
    assert len(sql_state["ruling_translation"]) == 16


def test_a_rulings_rules_are_listed_in_the_order_of_the_rules_document(tmp_path):
    """`card` lists the rules a ruling is linked to as the Comprehensive Rules order them: 702.19
    before 702.169, 719.3a before 719.10, which text order reverses. Constructed rows (the
    excerpt has no such pair): two rulings of one card, each linked to two rules."""
    import duckdb

    from pipeline.load.warehouse import apply_schema
    from pipeline.resources import read_sql

    con = duckdb.connect(str(tmp_path / "w.duckdb"))
    apply_schema(con)
    con.execute("INSERT INTO cr_edition VALUES ('2024-09-20', 'doc', 4, 0)")
    for position, number in enumerate(["702.19", "702.169", "719.3a", "719.10"]):
        con.execute("INSERT INTO cr_rule VALUES ('2024-09-20', ?, NULL, NULL, 'text', ?)", [number, position])
    con.execute("INSERT INTO ruling (ruling_id, source, published_at, text, match_key) "
                "VALUES ('r1', 'wotc', '2024-02-02', 'one', 'one'), ('r2', 'wotc', '2024-02-02', 'two', 'two')")
    con.execute("INSERT INTO card_ruling (oracle_id, ruling_id, position) VALUES ('o', 'r1', 0), ('o', 'r2', 1)")
    for ruling_id, number in [("r1", "702.169"), ("r1", "702.19"), ("r2", "719.10"), ("r2", "719.3a")]:
        con.execute("INSERT INTO ruling_rule (ruling_id, effective_date, rule_number, method, evidence) "
                    "VALUES (?, '2024-09-20', ?, 'citation', 'x')", [ruling_id, number])
    listed = [row[-2] for row in con.execute(read_sql("read/card_rulings.sql"), {"oracle_id": "o"}).fetchall()]
    assert listed == ["702.19 (citation), 702.169 (citation)", "719.3a (citation), 719.10 (citation)"]


def test_a_translation_added_names_the_cards_of_its_ruling_in_changes(data_dir, tmp_path, capsys):
    """The sample is synced, then the copy of it whose Shifting Visage listeblanche page carries
    marker French copies ("[FR 0]", …; test-only, as above). `changes` lists the 16 translations,
    each under the cards of its ruling (Shifting Visage, and the other Cases of a shared ruling),
    not under the site it came from."""
    assert main(["--data-dir", str(data_dir), "-q", "sync", "--offline"]) == 0
    assert main(["--data-dir", str(data_dir), "-q", "sync", "--offline", str(_with_french(tmp_path))]) == 0
    capsys.readouterr()
    assert main(["--data-dir", str(data_dir), "changes", "--format", "json"]) == 0
    events = json.loads(capsys.readouterr().out)
    assert [e["kind"] for e in events] == ["translation_added"] * 16
    assert all(e["field"] == "fr" and e["card"] and VISAGE in e["card"].split("; ") for e in events)


def test_a_translation_re_worded_or_dropped_is_a_change_event(data_dir, tmp_path, capsys):
    """The marker copies of the test above, then the same page with one copy re-worded and one
    gone (its English ruling stays), then the sample without any: one translation_changed and one
    translation_removed, then the other 15 removed, each with its ruling's cards."""
    def changes():
        capsys.readouterr()
        assert main(["--data-dir", str(data_dir), "changes", "--format", "json"]) == 0
        return json.loads(capsys.readouterr().out)

    assert main(["--data-dir", str(data_dir), "-q", "sync", "--offline", str(_with_french(tmp_path))]) == 0
    before = dict(rows(data_dir, "SELECT text, ruling_id FROM ruling_translation"))
    edited = _with_french(tmp_path, "edited", lambda i: {3: "[FR 3, revu]", 5: None}.get(i, f"[FR {i}]"))
    assert main(["--data-dir", str(data_dir), "-q", "sync", "--offline", str(edited)]) == 0
    events = changes()
    assert [(e["kind"], e["field"], e["before"], e["after"], e["id"]) for e in events] == sorted([
        ("translation_changed", "fr", "[FR 3]", "[FR 3, revu]", before["[FR 3]"]),
        ("translation_removed", "fr", "[FR 5]", None, before["[FR 5]"])], key=lambda e: (e[0], e[4]))
    assert all(VISAGE in e["card"].split("; ") for e in events)
    assert rows(data_dir, "SELECT count(*) FROM ruling_translation") == [(15,)]
    assert main(["--data-dir", str(data_dir), "-q", "sync", "--offline"]) == 0
    events = changes()
    assert {e["kind"] for e in events} == {"translation_removed"} and len(events) == 15
    assert rows(data_dir, "SELECT count(*) FROM ruling_translation") == [(0,)]
    assert rows(data_dir, "SELECT count(*) FROM ruling") == [(45,)]  # the rulings stay


def test_a_ruling_removed_with_its_card_is_not_said_again_to_lose_its_translation(data_dir, tmp_path, capsys):
    """The marker copies of the tests above, then the sample without Shifting Visage (its documents,
    the page of the French copies among them, gone): the rulings that were its alone are removed,
    each one event; the translations of the rulings it shared with other Cases are removed alone.
    Every translation is said gone once, never by a translation_removed beside the ruling_removed
    of its ruling."""
    assert main(["--data-dir", str(data_dir), "-q", "sync", "--offline", str(_with_french(tmp_path))]) == 0
    translated = {ruling_id for (ruling_id,) in rows(data_dir, "SELECT ruling_id FROM ruling_translation")}
    assert len(translated) == 16
    run = EditableRun(tmp_path / "without-visage")
    run.drop_card(VISAGE)
    assert main(["--data-dir", str(data_dir), "-q", "sync", "--offline", str(run.path)]) == 0
    capsys.readouterr()
    assert main(["--data-dir", str(data_dir), "changes", "--format", "json"]) == 0
    events = json.loads(capsys.readouterr().out)
    removed = {e["id"] for e in events if e["kind"] == "ruling_removed"}
    untranslated = [e["id"] for e in events if e["kind"] == "translation_removed"]
    assert removed and untranslated  # some of each: the test would say nothing otherwise
    assert not removed & set(untranslated)
    assert len(set(untranslated)) == len(untranslated) and set(untranslated) | (removed & translated) == translated


def test_a_cards_rulings_are_numbered_one_to_n_when_a_page_shows_one_the_api_does_not(data_dir, tmp_path, capsys):
    """Constructed: a copy of the sample whose API rulings list of Case of the Burning Masks lacks
    its fifth ruling, which its scryfall.com and listeblanche.fr pages still show (a page behind
    the API). That ruling stays the card's, at its place on the pages, where the API's list now
    has another: the card's list numbers its rulings 1 to n all the same, each once."""
    from support.runs import sync_a_page_ahead_of_the_api

    sync_a_page_ahead_of_the_api(data_dir, tmp_path / "page-ahead")
    capsys.readouterr()
    assert main(["--data-dir", str(data_dir), "card", "Case of the Burning Masks", "--format", "json"]) == 0
    numbers = [r["n"] for r in json.loads(capsys.readouterr().out)]
    assert len(numbers) == 15  # the 14 of the API's list, and the one only the pages show
    assert numbers == list(range(1, 16))
    assert main(["--data-dir", str(data_dir), "card", "Case of the Burning Masks"]) == 0
    out = capsys.readouterr().out
    assert "Rulings (15):" in out and re.findall(r"^ ?(\d+)\. ", out, re.M) == [str(n) for n in range(1, 16)]


def test_a_ruling_re_worded_on_the_api_before_the_pages_is_one_ruling_re_worded(data_dir, tmp_path, capsys):
    """Constructed: the sample synced, then a copy of it whose API rulings list of Case of the
    Shifting Visage words one ruling otherwise ("won’t cause" → "doesn’t cause"), its pages as
    recorded (the sites copy Scryfall's rulings later). Before, the old wording stayed a ruling of
    its own, from the pages: the card had 17 rulings, and `changes` listed a ruling added."""
    from support.runs import EditableRun

    assert main(["--data-dir", str(data_dir), "-q", "sync", "--offline"]) == 0
    run = EditableRun(tmp_path / "reworded")
    run.edit_rulings(VISAGE, lambda rulings: [r.update(comment=r["comment"].replace("won’t cause", "doesn’t cause"))
                                              for r in rulings])
    assert main(["--data-dir", str(data_dir), "-q", "sync", "--offline", str(run.path)]) == 0
    capsys.readouterr()
    assert main(["--data-dir", str(data_dir), "changes", "--format", "json"]) == 0
    events = json.loads(capsys.readouterr().out)
    assert [(e["kind"], e["card"]) for e in events] == [("ruling_reworded", VISAGE)]
    assert "won’t cause" in events[0]["before"] and "doesn’t cause" in events[0]["after"]
    assert rows(data_dir, "SELECT count(*) FROM ruling") == [(45,)]
    assert rows(data_dir, "SELECT origin, flags FROM ruling_sighting WHERE ruling_id = ? ORDER BY origin",
                [events[0]["id"]]) == [("listeblanche", ["other_wording"]), ("scryfall-api", []),
                                       ("scryfall-page", ["other_wording"])]
    assert main(["--data-dir", str(data_dir), "card", VISAGE]) == 0
    assert "Rulings (16):" in capsys.readouterr().out


def test_a_printing_in_other_languages_only_is_listed_among_the_printings(data_dir, tmp_path, capsys):
    """Constructed: a copy of the sample without the English printing of Case of the Shifting
    Visage (MKC 19), whose German, French, Italian and Japanese printings stay, as a printing
    Scryfall has in other languages only (Japanese alternate arts, say) has no English row. The
    card's printings still name MKC 19."""
    from pipeline.rawstore import doc_id_for
    from support.runs import EditableRun

    run = EditableRun(tmp_path / "no-english-printing")
    [search] = run.entries("search")
    page = run.read(search)
    english = [c for c in page["data"] if c["name"] == VISAGE and c["lang"] == "en"]
    assert len(english) == 1 and sum(c["name"] == VISAGE for c in page["data"]) == 5
    page["data"].remove(english[0])
    page["total_cards"] = len(page["data"])
    run.write(search, page)
    # the card's rulings are asked for through the first of its printings left (no English one)
    stand_in = next(c["id"] for c in page["data"] if c["name"] == VISAGE)
    [rulings] = run.entries("rulings", english[0]["oracle_id"])
    for name in ("url", "final_url"):
        rulings[name] = rulings[name].replace(english[0]["id"], stand_in)
    rulings["doc_id"] = doc_id_for(rulings["url"], (run.path / rulings["path"]).read_bytes())
    run._save()
    assert main(["--data-dir", str(data_dir), "-q", "sync", "--offline", str(run.path)]) == 0
    capsys.readouterr()
    assert main(["--data-dir", str(data_dir), "card", VISAGE]) == 0
    assert "Printings: MKC 19 (languages: de, fr, it, ja)" in capsys.readouterr().out.splitlines()


def test_a_cards_printings_go_by_collector_number_in_a_set(warehouse_copy, capsys):
    """Test-only printings of Case of the Burning Masks (constructed: its real ones are MKM 113
    alone): MKM 9 comes before MKM 10 and 113, as a set's numbers go, not as text would sort them."""
    data = warehouse_copy(
        "INSERT INTO printing BY NAME SELECT * REPLACE ('test-9' AS scryfall_id, '9' AS collector_number) "
        "FROM printing WHERE collector_number = '113' AND lang = 'en'",
        "INSERT INTO printing BY NAME SELECT * REPLACE ('test-10a' AS scryfall_id, '10a' AS collector_number) "
        "FROM printing WHERE collector_number = '113' AND lang = 'en'")
    assert main(["--data-dir", str(data), "card", "Case of the Burning Masks"]) == 0
    assert "Printings: MKM 9, MKM 10a, MKM 113 (languages: de, en, es, fr, it, ja, pt, zhs)" in \
        capsys.readouterr().out.splitlines()


def _translation_keys(data_dir) -> dict[str, str]:
    return dict(rows(data_dir, "SELECT ruling_id, key FROM ruling_translation_key"))


def _translations_folded(data_dir) -> dict[str, str]:
    """The translation keys folded from ruling_translation as it is now, as a search of a
    warehouse made before ruling_translation_key folds them."""
    return dict(rows(data_dir, "SELECT ruling_id, key FROM " + read_sql("read/translation_keys_folded.sql"),
                     FOLD_PARAMS))


def _found(data_dir, words) -> list[str]:
    con = duckdb.connect(str(warehouse_of(data_dir)), read_only=True)
    try:
        return [row[-1] for row in search(con, words)[1]]
    finally:
        con.close()


def test_the_translation_keys_follow_every_change_of_the_translations(data_dir, tmp_path):
    """ruling_translation_key, which the search scans instead of folding every translation again:
    after marker copies of the first 12 rulings (with accents and French quotes), after the same
    page with one copy re-worded, one gone and the last four added (and a rebuild of that), and
    after the sample without any, it holds one key per translated ruling, as the translations
    fold then, and the search finds each ruling by its French words."""
    french = _with_french(tmp_path, marker=lambda i: f"Enquête « résolue », repère{i:02d}." if i < 12 else None)
    assert main(["--data-dir", str(data_dir), "-q", "sync", "--offline", str(french)]) == 0
    keys = _translation_keys(data_dir)
    by_text = dict(rows(data_dir, "SELECT text, ruling_id FROM ruling_translation"))
    assert len(keys) == 12 and keys == _translations_folded(data_dir)
    third = by_text["Enquête « résolue », repère03."]
    assert keys[third] == 'enquete " resolue ", repere03.'
    assert _found(data_dir, "repere03") == _found(data_dir, "Résolue repère03") == [third]

    edited = _with_french(tmp_path, "edited", lambda i: {3: "Enquête revue, repère03.", 5: None}.get(
        i, f"Enquête « résolue », repère{i:02d}."))
    assert main(["--data-dir", str(data_dir), "-q", "sync", "--offline", str(edited)]) == 0
    keys = _translation_keys(data_dir)
    assert len(keys) == 15 and keys == _translations_folded(data_dir)
    assert _found(data_dir, "revue repere03") == [third]
    now = dict(rows(data_dir, "SELECT text, ruling_id FROM ruling_translation"))
    added = now["Enquête « résolue », repère14."]
    assert _found(data_dir, "resolue repere14") == [added] and "repère14" not in str(by_text)
    assert _found(data_dir, "repere05") == [] and _found(data_dir, "resolue repere03") == []
    rebuilt = tmp_path / "rebuilt"  # a rebuild from the raw runs derives the same keys
    shutil.copytree(data_dir, rebuilt)
    assert main(["--data-dir", str(rebuilt), "-q", "rebuild"]) == 0
    assert _translation_keys(rebuilt) == keys

    assert main(["--data-dir", str(data_dir), "-q", "sync", "--offline"]) == 0
    assert _translation_keys(data_dir) == {} and _found(data_dir, "enquete") == []


def test_runs_an_older_casefile_loaded_after_an_upgrade_get_their_translation_keys_at_the_next_load(data_dir,
                                                                                                   tmp_path,
                                                                                                   monkeypatch):
    """An upgrade rolled back, then made again: a casefile before ruling_translation_key (ff7285b)
    synced a run that changed translations, then this one synced again. CONSTRUCTED: that
    version's load is this version's with the derived tables left as they were (it did not know
    them; its writer's open filled none either). Before, the keys it left stayed for good: a load
    derives the keys of the translations its merge changes, and the next sync changed none, so
    the search found a ruling by the French text it no longer has, and not by the one it has."""
    import pipeline.load.warehouse

    first = _with_french(tmp_path, "first", lambda i: f"Enquête « résolue », repère{i:02d}.")
    assert main(["--data-dir", str(data_dir), "-q", "sync", "--offline", str(first)]) == 0
    [third] = _found(data_dir, "resolue repere03")
    edited = _with_french(tmp_path, "edited", lambda i: {3: "Enquête revue, repère03.", 5: None}.get(
        i, f"Enquête « résolue », repère{i:02d}."))
    with monkeypatch.context() as older:
        for derives in ("_fill_derived_tables", "_derive_card_names", "_derive_translation_keys", "_mark_derived"):
            older.setattr(pipeline.load.warehouse, derives, lambda *args, **kwargs: None, raising=False)
        assert main(["--data-dir", str(data_dir), "-q", "sync", "--offline", str(edited)]) == 0
    assert _translation_keys(data_dir) != _translations_folded(data_dir)  # as the older version left them
    assert main(["--data-dir", str(data_dir), "-q", "sync", "--offline", str(edited)]) == 0  # no change
    assert _translation_keys(data_dir) == _translations_folded(data_dir)
    assert _found(data_dir, "revue repere03") == [third] and _found(data_dir, "resolue repere03") == []
    assert _found(data_dir, "repere05") == []
    assert rows(data_dir, "SELECT ruling_id, cards FROM ruling_card_names ORDER BY 1") == rows(
        data_dir, "SELECT ruling_id, string_agg(name, '; ' ORDER BY name) FROM card_ruling JOIN card USING (oracle_id) "
                  "GROUP BY 1 ORDER BY 1")


def test_a_warehouse_made_before_the_translation_keys_is_searched_by_folding_then_filled(data_dir, tmp_path):
    """A warehouse without ruling_translation_key (made by an older casefile: the table dropped
    here) is searched by folding its translations in the query; its next writer fills the table,
    and the search gives the same rows."""
    french = _with_french(tmp_path, marker=lambda i: f"Enquête « résolue », repère{i:02d}.")
    assert main(["--data-dir", str(data_dir), "-q", "sync", "--offline", str(french)]) == 0
    keys = _translation_keys(data_dir)
    con = duckdb.connect(str(warehouse_of(data_dir)))
    con.execute("DROP TABLE ruling_translation_key")
    con.close()
    con = duckdb.connect(str(warehouse_of(data_dir)), read_only=True)
    try:
        columns, found = search(con, "resolue repere07")
    finally:
        con.close()
    assert len(found) == 1 and found[0][-1] in keys

    open_writer(warehouse_of(data_dir)).close()  # the next writer, whatever it does
    assert _translation_keys(data_dir) == keys
    con = duckdb.connect(str(warehouse_of(data_dir)), read_only=True)
    try:
        assert search(con, "resolue repere07") == (columns, found)
    finally:
        con.close()
