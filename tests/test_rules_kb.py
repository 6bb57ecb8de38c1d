"""The Comprehensive Rules in the warehouse: ingest, links with their method, `rule`, `rules diff`."""

import json

import pytest

from pipeline.cli import main

from conftest import FIXTURES
from support.warehouse_state import query as rows

EXCERPT = FIXTURES / "rules" / "cr_case_excerpt.txt"
CR = json.loads((FIXTURES / "reference" / "comprehensive_rules_719.json").read_text("utf-8"))

# The 9 general Case rulings and the Case rules their text warrants (keyword links), one per line.
EXPECTED_KEYWORD_LINKS = {
    "Each Case has two special keyword abilities": {"719.3", "702.169a"},
    "\"To Solve — [condition]\" means": {"719.3a"},
    "The meaning of \"solved\" differs": {"719.3c", "702.169", "702.169d"},
    "\"Solved — [Triggered ability]\" means": {"719.3c", "702.169", "702.169c"},
    "\"Solved — [static ability]\" means": {"719.3c", "702.169", "702.169b"},
    "\"To solve\" abilities will check": {"719.3a"},
    "Once a Case becomes solved": {"719.3b"},
    "Cases don't lose their other abilities": {"719.3b"},
    "Being solved is not part of a permanent's copiable values": {"719.3b"},
}


@pytest.fixture(scope="module")
def kb(tmp_path_factory):
    data = tmp_path_factory.mktemp("rules") / "data"
    assert main(["--data-dir", str(data), "-q", "sync", "--offline"]) == 0
    assert main(["--data-dir", str(data), "rules", "ingest", str(EXCERPT)]) == 0
    return data


def _straight(text):
    return text.replace("’", "'").replace("“", '"').replace("”", '"')


def test_every_general_case_ruling_links_to_the_rules_its_text_warrants(kb):
    links = rows(kb, """SELECT r.text, l.rule_number, l.method, l.evidence FROM ruling_rule l JOIN ruling r USING (ruling_id)
                        WHERE r.ruling_id IN (SELECT ruling_id FROM card_ruling GROUP BY ALL HAVING count(*) = 13)""")
    found: dict[str, set] = {start: set() for start in EXPECTED_KEYWORD_LINKS}
    for text, number, method, evidence in links:
        assert method in ("citation", "keyword", "glossary") and evidence
        [start] = [s for s in EXPECTED_KEYWORD_LINKS if _straight(text).startswith(s)]
        if method == "keyword":
            found[start].add(number)
    assert found == EXPECTED_KEYWORD_LINKS
    case_rules = {"719.3a", "719.3b", "719.3c", "702.169"}
    for start, numbers in found.items():
        assert numbers & case_rules or numbers == {"719.3", "702.169a"}, start


def test_card_specific_rulings_get_no_case_keyword_links(kb):
    assert rows(kb, """SELECT count(*) FROM ruling_rule l JOIN ruling r USING (ruling_id)
                       WHERE l.method = 'keyword'
                         AND r.ruling_id IN (SELECT ruling_id FROM card_ruling GROUP BY ALL HAVING count(*) < 13)""") == [(0,)]


def test_every_case_card_links_to_719_by_its_type_line(kb):
    assert rows(kb, "SELECT count(DISTINCT oracle_id) FROM card_rule WHERE rule_number = '719' AND method = 'type_line'") == [(15,)]
    assert rows(kb, "SELECT count(DISTINCT oracle_id) FROM card_rule WHERE rule_number = '719.3a'") == [(15,)]
    methods = {m for (m,) in rows(kb, "SELECT DISTINCT method FROM card_rule")}
    assert methods == {"type_line", "keyword", "wiki_quote"}


def test_rule_command_output(kb, capsys, golden):
    capsys.readouterr()
    assert main(["--data-dir", str(kb), "rule", "719.3a"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("719.3a  (Comprehensive Rules effective 2024-09-20)\n“To solve — [Condition]” means")
    assert "Rulings linked (2):" in out and "Cards linked (15):" in out  # 30 links: each card's two
    golden("rule_719.3a.txt", out)
    assert main(["--data-dir", str(kb), "rule", "719.3A"]) == 0  # the letter as typed in capitals
    assert capsys.readouterr().out == out


def test_rule_command_shows_at_most_limit_links_of_each_kind(kb, capsys):
    """A warehouse of every card links thousands of rulings and cards to 702.169: --limit keeps
    the page readable (50 of each by default) and says how many more there are."""
    capsys.readouterr()
    assert main(["--data-dir", str(kb), "rule", "719", "--limit", "5"]) == 0
    out = capsys.readouterr().out
    rulings, cards = out.split("Cards linked")
    assert "Rulings linked (23):" in rulings and rulings.count("\n  20") + rulings.count("\n  undated") == 5
    assert "  … and 18 more (--limit 0 shows them all)" in rulings
    assert cards.startswith(" (15):") and "  … and 10 more" in cards
    assert cards.count(" · ") == 10 and len({line.split(" · ")[0] for line in cards.splitlines() if " · " in line}) == 5
    assert main(["--data-dir", str(kb), "rule", "719"]) == 0  # 50 by default: all of the Case cards'
    assert main(["--data-dir", str(kb), "rule", "719", "--limit", "0"]) == 0
    default, everything = capsys.readouterr().out.split("719  Case Cards", 2)[1:]
    assert "more (--limit 0" not in default and default == everything


def test_rule_command_counts_a_ruling_linked_twice_once(kb, capsys):
    """Three rulings link to 702.169 both by the glossary term "Solved" and by a keyword: the page
    counts 13 rulings (16 links), shows each ruling's text once, after its links, and --limit
    and "… more" count rulings too."""
    capsys.readouterr()
    assert main(["--data-dir", str(kb), "rule", "702.169"]) == 0
    rulings = capsys.readouterr().out.split("Cards linked")[0]
    assert "Rulings linked (13):" in rulings
    assert rulings.count("\n  20") + rulings.count("\n  undated") == 16
    assert rulings.count("Being solved is not part") == 1
    twice = rulings.split("\n  2024-02-02 · wotc · keyword: ")[0].splitlines()[-1]
    assert twice.startswith("  2024-02-02 · wotc · glossary: ")  # its other link, not its text
    assert main(["--data-dir", str(kb), "rule", "702.169", "--limit", "12"]) == 0
    rulings = capsys.readouterr().out.split("Cards linked")[0]
    assert "Rulings linked (13):" in rulings and "  … and 1 more (--limit 0 shows them all)" in rulings
    lines = rulings.splitlines()
    texts = [line for before, line in zip(lines, lines[1:])
             if line.startswith("    ") and before.startswith("  ") and not before.startswith("    ")]
    assert len(texts) == 12  # 12 rulings, each with its text once


@pytest.mark.parametrize("batch", [1, 3, 1_000])
@pytest.mark.parametrize("args,page", [
    (["702.169", "--limit", "0"], "rule_702.169_limit-0.txt"),  # three rulings linked twice
    (["702.169", "--limit", "2"], "rule_702.169_limit-2.txt"),  # "… and N more" of each kind
    (["719.1"], "rule_719.1.txt"),  # no ruling linked, cards
    (["702.169a"], "rule_702.169a.txt"),  # a ruling, no card
])
def test_rule_command_prints_the_page_as_the_links_stream_in(kb, capsys, golden, monkeypatch, args, page, batch):
    """The page is printed as the links are read, ``batch`` rows at a time: batches of 1 or 3
    split a ruling's two links and the rulings from the cards, and the text is the same."""
    from pipeline import rules_view

    monkeypatch.setattr(rules_view, "LINK_BATCH", batch)
    capsys.readouterr()
    assert main(["--data-dir", str(kb), "rule", *args]) == 0
    golden(page, capsys.readouterr().out)


def test_rule_command_to_a_closed_pipe_exits_0_and_closes_its_connection(kb, capsys, monkeypatch):
    """`casefile rule 702.169 --limit 0 | head`: the reader goes away while the links are read."""
    import sys

    from pipeline import cli, reader, rules_view

    opened = []

    def open_reader(*args):
        opened.append(real_open(*args))
        return opened[-1]

    class ClosedPipe:
        def write(self, text):
            raise BrokenPipeError(32, "Broken pipe")

        def flush(self):
            pass

        def fileno(self):  # Group.invoke points stdout at /dev/null: there is no descriptor here
            raise OSError("no descriptor")

    real_open, real_echo_chunks = reader.open_reader, cli.echo_chunks
    monkeypatch.setattr(reader, "open_reader", open_reader)
    monkeypatch.setattr(rules_view, "LINK_BATCH", 1)
    # every line written at once: the pipe is found closed at the first, before a link is read
    monkeypatch.setattr(cli, "echo_chunks", lambda chunks: real_echo_chunks(chunks, size=1))
    monkeypatch.setattr(sys, "stdout", ClosedPipe())
    assert main(["--data-dir", str(kb), "rule", "702.169", "--limit", "0"]) == 0
    monkeypatch.undo()
    [con] = opened
    with pytest.raises(Exception, match="closed"):
        con.execute("SELECT 1")
    assert capsys.readouterr().err == ""


def test_rule_command_piped_to_head_exits_0(kb):
    import subprocess
    import sys

    from conftest import subprocess_env

    process = subprocess.Popen([sys.executable, "-m", "pipeline", "rule", "702.169", "--limit", "0"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=subprocess_env(kb))
    process.stdout.close()  # before the command writes: its first write finds the pipe closed
    assert process.wait(timeout=60) == 0
    assert process.stderr.read() == b""
    process.stderr.close()


def test_rule_command_errors(kb, capsys):
    assert main(["--data-dir", str(kb), "rule", "999.9z"]) == 2
    assert "not in the edition" in capsys.readouterr().err
    assert main(["--data-dir", str(kb), "rule", "solve"]) == 2


def test_card_shows_each_rulings_rules(kb, capsys):
    capsys.readouterr()
    assert main(["--data-dir", str(kb), "card", "Case of the Shattered Pact", "--format", "json"]) == 0
    rulings = json.loads(capsys.readouterr().out)
    to_solve = next(r for r in rulings if _straight(r["text"]).startswith('"To Solve'))
    assert "719.3a (keyword)" in to_solve["rules"]


def test_changes_after_a_rules_ingest_lists_the_latest_syncs_changes(kb, capsys):
    """A rules ingest is a run that records no change event; `changes` with no --since shows the
    latest sync's events, not "no changes" of the ingest run."""
    [(sync_run,)] = rows(kb, "SELECT run_id FROM sync_run WHERE mode = 'offline'")
    assert rows(kb, "SELECT max(run_id) > ? FROM sync_run", [sync_run]) == [(True,)]  # the ingest came after
    capsys.readouterr()
    assert main(["--data-dir", str(kb), "changes", "--format", "json"]) == 0
    events = json.loads(capsys.readouterr().out)
    [(expected,)] = rows(kb, "SELECT count(*) FROM change_event WHERE run_id = ?", [sync_run])
    assert expected > 0 and len(events) == expected and {e["run_id"] for e in events} == {sync_run}


def test_changes_with_only_a_rules_ingest_says_no_sync_yet(data_dir, capsys):
    assert main(["--data-dir", str(data_dir), "-q", "rules", "ingest", str(EXCERPT)]) == 0
    capsys.readouterr()
    assert main(["--data-dir", str(data_dir), "changes"]) == 0
    assert capsys.readouterr().out == "no syncs yet\n"


def test_the_diff_table_shows_where_two_long_texts_differ(tmp_path, capsys):
    """719.3a re-worded near the end of its 130 characters: the table cut both cells at 80 and
    printed the same text as old and new. Each cell now starts a little before the difference;
    --format json keeps the texts whole."""
    data = tmp_path / "data"
    assert main(["--data-dir", str(data), "-q", "sync", "--offline"]) == 0
    assert main(["--data-dir", str(data), "-q", "rules", "ingest", str(EXCERPT)]) == 0
    text = EXCERPT.read_text("utf-8")
    assert "this Case is not solved, this Case becomes solved." in text
    later = tmp_path / "later.txt"
    later.write_text(text.replace("These rules are effective as of September 20, 2024.",
                                  "These rules are effective as of November 8, 2024.")
                         .replace("this Case is not solved, this Case becomes solved.",
                                  "this Case is not solved, it becomes solved."), "utf-8")
    assert main(["--data-dir", str(data), "-q", "rules", "ingest", str(later)]) == 0
    capsys.readouterr()
    assert main(["--data-dir", str(data), "rules", "diff", "2024-09-20", "2024-11-08"]) == 0
    [row] = [line for line in capsys.readouterr().out.splitlines() if line.startswith("719.3a")]
    assert row.split("  ")[1:] == ["reworded", "…Case is not solved, this Case becomes solved.”",
                                   "…Case is not solved, it becomes solved.”"]
    assert main(["--data-dir", str(data), "rules", "diff", "2024-09-20", "2024-11-08", "--format", "json"]) == 0
    [change] = json.loads(capsys.readouterr().out)
    assert change["old_text"].startswith("“To solve — [Condition]” means") and len(change["old_text"]) > 120


def test_windows_1252_with_bare_cr_ingests_to_the_same_rows(tmp_path, kb):
    legacy = tmp_path / "MagicCompRules-legacy.txt"
    legacy.write_bytes(EXCERPT.read_text("utf-8").replace("\n", "\r").encode("cp1252"))
    other = tmp_path / "data"
    assert main(["--data-dir", str(other), "-q", "sync", "--offline"]) == 0
    assert main(["--data-dir", str(other), "rules", "ingest", str(legacy)]) == 0
    for table in ("cr_rule", "cr_glossary", "ruling_rule", "card_rule"):
        assert rows(other, f"SELECT * FROM {table} ORDER BY ALL") == rows(kb, f"SELECT * FROM {table} ORDER BY ALL"), table


def test_two_editions_differing_in_one_rule_diff_to_that_rule(tmp_path, capsys):
    data = tmp_path / "data"
    assert main(["--data-dir", str(data), "-q", "sync", "--offline"]) == 0
    assert main(["--data-dir", str(data), "rules", "ingest", str(EXCERPT)]) == 0
    text = EXCERPT.read_text("utf-8")
    old_sentence = "719.2. The Case frame has no additional rules meaning."
    assert old_sentence in text
    # a constructed later edition: another effective date, one rule re-worded
    edited = text.replace("These rules are effective as of September 20, 2024.",
                          "These rules are effective as of November 8, 2024.")
    edited = edited.replace(old_sentence, "719.2. The Case frame has no rules meaning.")
    later = tmp_path / "later.txt"
    later.write_text(edited, "utf-8")
    assert main(["--data-dir", str(data), "rules", "ingest", str(later)]) == 0
    capsys.readouterr()
    assert main(["--data-dir", str(data), "rules", "diff", "2024-09-20", "2024-11-08", "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out) == [{"number": "719.2", "change": "reworded",
                                                    "old_text": "The Case frame has no additional rules meaning.",
                                                    "new_text": "The Case frame has no rules meaning."}]
    assert rows(data, "SELECT count(*) FROM cr_edition") == [(2,)]
    assert rows(data, "SELECT DISTINCT effective_date FROM ruling_rule") == rows(data, "SELECT max(effective_date) FROM cr_edition")
    assert main(["--data-dir", str(data), "rules", "diff", "2024-09-20", "2023-01-01"]) == 2


def test_an_edition_that_renumbered_the_keyword_tables_rules_says_which_links_it_loses(tmp_path, capsys):
    """A constructed later edition in which 702.169 "Solved" is 702.170 (every number of it
    renumbered, its text unchanged). The keyword table names 702.169 and 702.169a-d: rulings
    that state them get no keyword link to the new edition, and the ingest says so."""
    data = tmp_path / "data"
    assert main(["--data-dir", str(data), "-q", "sync", "--offline"]) == 0
    assert main(["--data-dir", str(data), "rules", "ingest", str(EXCERPT)]) == 0
    assert "keyword" not in capsys.readouterr().err
    text = EXCERPT.read_text("utf-8")
    renumbered = text.replace("These rules are effective as of September 20, 2024.",
                              "These rules are effective as of November 8, 2024.").replace("702.169", "702.170")
    later = tmp_path / "renumbered.txt"
    later.write_text(renumbered, "utf-8")
    assert main(["--data-dir", str(data), "rules", "ingest", str(later)]) == 0
    err = capsys.readouterr().err
    assert "2024-11-08" in err and "702.169, 702.169a, 702.169b, 702.169c, 702.169d" in err
    assert rows(data, "SELECT count(*) FROM ruling_rule WHERE method = 'keyword' AND rule_number LIKE '702.1%'") == [(0,)]


def test_a_rule_of_an_older_edition_says_its_links_are_on_the_newest(tmp_path, capsys):
    """Links are made to the newest edition only. A rule of an older one (here the excerpt, with a
    constructed later edition of another effective date beside it) has no links of its own:
    `rule` says where they are rather than "none", which reads as "no ruling rests on it"."""
    data = tmp_path / "data"
    assert main(["--data-dir", str(data), "-q", "sync", "--offline"]) == 0
    assert main(["--data-dir", str(data), "-q", "rules", "ingest", str(EXCERPT)]) == 0
    later = tmp_path / "later.txt"
    later.write_text(EXCERPT.read_text("utf-8").replace("These rules are effective as of September 20, 2024.",
                                                        "These rules are effective as of November 8, 2024."), "utf-8")
    assert main(["--data-dir", str(data), "-q", "rules", "ingest", str(later)]) == 0
    capsys.readouterr()
    assert main(["--data-dir", str(data), "rule", "719.3a", "--edition", "2024-09-20"]) == 0
    old = capsys.readouterr().out
    assert "Rulings linked: none" not in old and "Cards linked: none" not in old
    assert "casefile rule 719.3a --edition 2024-11-08" in old
    assert main(["--data-dir", str(data), "rule", "719.3a"]) == 0
    newest = capsys.readouterr().out
    assert "Rulings linked (2):" in newest and "--edition" not in newest


@pytest.mark.parametrize("args", [["rule", "719.3a", "--edition", ""], ["rule", "719.3a", "--edition", "2024-13-01"],
                                  ["rule", "719.3a", "--edition", "20240920"], ["rules", "diff", "20240920", "2024-09-20"],
                                  ["rules", "diff", "2024-09-20", ""]])
def test_an_effective_date_not_written_yyyy_mm_dd_is_named_as_such(tmp_path, capsys, args):
    """Before, `rule --edition` took any text and answered "no edition effective ; ingested: …" for
    an empty one, and `rules diff` took 20240920 (date.fromisoformat reads it) as a date."""
    data = tmp_path / "data"
    assert main(["--data-dir", str(data), "-q", "sync", "--offline"]) == 0
    assert main(["--data-dir", str(data), "-q", "rules", "ingest", str(EXCERPT)]) == 0
    capsys.readouterr()
    assert main(["--data-dir", str(data), *args]) == 2
    bad = args[-1] if args[0] == "rule" else next(a for a in args[2:] if a != "2024-09-20")
    assert f"{bad!r} is not an edition's effective date (YYYY-MM-DD)" in capsys.readouterr().err


def test_a_file_that_is_not_the_rules_is_refused(tmp_path, data_dir, capsys):
    junk = tmp_path / "notes.txt"
    junk.write_text("Shopping list\n", "utf-8")
    assert main(["--data-dir", str(data_dir), "rules", "ingest", str(junk)]) == 65
    assert "effective" in capsys.readouterr().err


@pytest.mark.parametrize("source,said", [("", "give a file or an http(s) URL"),
                                         (" ", "give a file or an http(s) URL"),
                                         ("{tmp}", "{tmp} is a folder, not a file"),
                                         ("{tmp}/none.txt", "{tmp}/none.txt is neither an http(s) URL nor a readable file"),
                                         ("{tmp}/" + "x" * 300 + "/cr.txt", "cannot read it (File name too long)")])
def test_a_source_that_is_no_file_is_refused_saying_what_it_is(tmp_path, data_dir, capsys, source, said):
    """`rules ingest ""` said " is neither an http(s) URL nor a readable file" (an empty name), a
    folder the same; a name too long was a traceback. No run is made for any of them."""
    source, said = source.replace("{tmp}", str(tmp_path)), said.replace("{tmp}", str(tmp_path))
    assert main(["--data-dir", str(data_dir), "rules", "ingest", source]) == 2
    err = capsys.readouterr().err
    assert said in err and "Traceback" not in err and len(err.splitlines()) == 1, err
    assert not (data_dir / "raw").exists()


def test_an_edition_the_checks_refuse_is_rejected_and_does_not_block_later_loads(tmp_path):
    # A rule printed twice: the edition parses, but two rows share the key (edition, rule), which
    # the warehouse checks refuse. The run must not stand before every later load.
    doubled = tmp_path / "doubled.txt"
    lines = EXCERPT.read_text("utf-8").splitlines(keepends=True)
    twice = next(line for line in lines if line.startswith("719.2. "))
    doubled.write_text("".join(line * (2 if line is twice else 1) for line in lines), "utf-8")
    data = tmp_path / "data"
    assert main(["--data-dir", str(data), "-q", "sync", "--offline"]) == 0
    assert main(["--data-dir", str(data), "-q", "rules", "ingest", str(doubled)]) == 65
    failed = [json.loads(p.read_text("utf-8")) for p in (data / "raw").glob("*/_FAILED")]
    assert [f["status"] for f in failed] == ["rejected"] and "warehouse checks" in failed[0]["reason"]
    assert main(["--data-dir", str(data), "-q", "rules", "ingest", str(EXCERPT)]) == 0
    assert main(["--data-dir", str(data), "-q", "sync", "--offline"]) == 0
    assert main(["--data-dir", str(data), "-q", "rebuild"]) == 0
    assert rows(data, "SELECT count(*) FROM cr_rule") == [(14,)]


def test_a_file_name_that_is_not_utf8_is_ingested_and_recorded_readably(tmp_path, data_dir, capsys):
    import os
    import shutil

    from pipeline.rawstore import RawStore, read_manifest

    source = tmp_path / os.fsdecode(b"r\xe9gles.txt")  # Latin-1 bytes, as an old file system names it
    shutil.copyfile(EXCERPT, source)
    assert main(["--data-dir", str(data_dir), "rules", "ingest", str(source)]) == 0
    assert "14 rules" in capsys.readouterr().out
    [run] = RawStore(data_dir / "raw").runs()
    assert run.meta["rules_source"] == str(tmp_path / "r\N{REPLACEMENT CHARACTER}gles.txt")
    [entry] = read_manifest(run)
    assert entry.key == "r\N{REPLACEMENT CHARACTER}gles.txt" and entry.url == source.as_uri()
    assert entry.url.endswith("/r%E9gles.txt")  # the exact bytes, percent-encoded


def test_a_missing_file_whose_name_is_not_utf8_is_a_usage_error(tmp_path, data_dir, capsys):
    import os

    assert main(["--data-dir", str(data_dir), "rules", "ingest", str(tmp_path / os.fsdecode(b"n\xe9ant.txt"))]) == 2
    err = capsys.readouterr().err
    assert "n\N{REPLACEMENT CHARACTER}ant.txt is neither an http(s) URL nor a readable file" in err


def test_a_missing_file_is_a_usage_error_that_leaves_no_run(tmp_path, data_dir, capsys):
    # a mistyped name made a run, marked failed, that `casefile status` then counted and listed
    from pipeline.rawstore import RawStore

    for missing, said in ((tmp_path / "nowhere.txt", "neither an http(s) URL nor a readable file"),
                          (tmp_path, "is a folder, not a file"), ("", "give a file or an http(s) URL")):
        assert main(["--data-dir", str(data_dir), "rules", "ingest", str(missing)]) == 2
        assert said in capsys.readouterr().err
    assert RawStore(data_dir / "raw").runs() == []
