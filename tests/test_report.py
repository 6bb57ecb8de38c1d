"""casefile report: the wiki's color box, set statistics, rulings counts, --query, HTML pages."""

import json
import os
import re
import stat
import threading
from html.parser import HTMLParser

import duckdb
import pytest
from lxml import etree, html as lxml_html

from pipeline.cli import main, main_group
from pipeline.report import REPORT_NAMES, wiki_share

from conftest import FIXTURES, ROOT

REFERENCE = json.loads((FIXTURES / "reference" / "case_cards.json").read_text("utf-8"))
WIKI_PAGE = next((FIXTURES / "seeds").glob("000_*.txt")).read_text("utf-8")
SCRIPT = "<script>alert(1)</script>"


@pytest.fixture
def synced(sample_data_dir):
    return sample_data_dir


@pytest.fixture
def copy_of(warehouse_copy):
    return warehouse_copy


def report(data, capsys, *args):
    code = main(["--data-dir", str(data), "report", *args])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


# --- colors: the MTG wiki's Statistics box -------------------------------------------------------

def wiki_statistics_box() -> list[str]:
    """'15 cards 6.7% 20% ...' from the wiki page text (seed 000): the total, then six shares."""
    line = next(l for l in WIKI_PAGE.splitlines() if l.startswith("Statistics"))
    match = re.fullmatch(r"Statistics\s+(\d+ cards)((?: [\d.]+%)+)", line.strip())
    assert match, line
    return [match.group(1), *match.group(2).split()]


def test_the_reference_cards_explain_each_figure_of_the_wiki_box():
    # colorless, W, U, B, R, G: 1, 3, 4, 2, 3, 2 of the 15 reference cards give the wiki's figures
    counts = [sum(1 for c in REFERENCE if c["colors"] == []),
              *(sum(1 for c in REFERENCE if c["colors"] == [color]) for color in "WUBRG")]
    assert counts == [1, 3, 4, 2, 3, 2]
    assert [f"{len(REFERENCE)} cards", *(wiki_share(n, len(REFERENCE)) for n in counts)] == wiki_statistics_box()


def test_colors_report_prints_the_wiki_box_with_labels(synced, capsys):
    code, out, err = report(synced, capsys, "colors")
    assert code == 0, err
    assert out == ('statistics   cards     colorless  white  blue   black  red  green\n'
                   '-----------  --------  ---------  -----  -----  -----  ---  -----\n'
                   'type:"Case"  15 cards  6.7%       20%    26.7%  13.3%  20%  13.3%\n'
                   '(1 row)\n')
    figures = re.split(r"\s{2,}", out.splitlines()[2])[1:]
    assert figures == wiki_statistics_box()


def test_colors_report_in_csv_and_json(synced, capsys):
    assert report(synced, capsys, "colors", "--format", "csv")[1] == (
        "statistics,cards,colorless,white,blue,black,red,green\n"
        '"type:""Case""",15 cards,6.7%,20%,26.7%,13.3%,20%,13.3%\n')
    assert json.loads(report(synced, capsys, "colors", "--format", "json")[1]) == [
        {"statistics": 'type:"Case"', "cards": "15 cards", "colorless": "6.7%", "white": "20%", "blue": "26.7%",
         "black": "13.3%", "red": "20%", "green": "13.3%"}]


@pytest.mark.parametrize("count,total,expected", [
    (1, 15, "6.7%"), (3, 15, "20%"), (4, 15, "26.7%"), (2, 15, "13.3%"), (0, 15, "0%"), (15, 15, "100%"),
    (1, 16, "6.3%"), (1, 3, "33.3%"), (2, 3, "66.7%"), (1, 8, "12.5%"), (0, 0, "")])
def test_wiki_share_rounds_to_one_decimal_half_up_without_trailing_zero(count, total, expected):
    assert wiki_share(count, total) == expected


def test_a_multicolored_card_counts_once_in_its_own_column(copy_of, capsys):
    # test-only change of a copy: one white card made white-blue, to exercise the multicolored rule
    data = copy_of("UPDATE card SET colors = ['W', 'U'] WHERE name = 'Case of the Gateway Express'")
    code, out, _ = report(data, capsys, "colors", "--format", "csv")
    assert code == 0
    assert out == ("statistics,cards,colorless,white,blue,black,red,green,multicolored\n"
                   '"type:""Case""",15 cards,6.7%,13.3%,26.7%,13.3%,20%,13.3%,6.7%\n')


def test_cards_with_unknown_colors_count_in_the_total_only(copy_of, capsys):
    data = copy_of("UPDATE card SET colors = NULL WHERE name = 'Case of the Shattered Pact'")
    out = report(data, capsys, "colors", "--format", "csv")[1]
    assert out.splitlines() == ["statistics,cards,colorless,white,blue,black,red,green,unknown",
                                '"type:""Case""",15 cards,0%,20%,26.7%,13.3%,20%,13.3%,6.7%']


# --- sets ----------------------------------------------------------------------------------------

def sets_rows(data, capsys):
    code, out, err = report(data, capsys, "sets", "--format", "json")
    assert code == 0, err
    return {row["set"]: row for row in json.loads(out)}


def test_sets_counts_oracle_cards_not_translated_printings(synced, capsys):
    rows = sets_rows(synced, capsys)
    assert sorted(rows) == ["MKC", "MKM", "PMKM", "YMKM"]
    # the reference lists, per card, the sets it was printed in (English printings)
    expected_cards = {}
    for card in REFERENCE:
        for code in {p["set_code"] for p in card["printings"]}:
            expected_cards[code] = expected_cards.get(code, 0) + 1
    assert {code: row["cards"] for code, row in rows.items()} == expected_cards
    con = duckdb.connect(str(synced / "warehouse" / "casefile.duckdb"), read_only=True)
    try:
        printings = dict(con.execute("SELECT set_code, count(*) FROM printing GROUP BY ALL").fetchall())
        languages = dict(con.execute("SELECT set_code, count(DISTINCT lang) FROM printing GROUP BY ALL").fetchall())
    finally:
        con.close()
    assert {code: row["printings"] for code, row in rows.items()} == printings
    assert {code: row["languages"] for code, row in rows.items()} == languages
    assert rows["MKM"]["printings"] > rows["MKM"]["cards"] and rows["MKM"]["languages"] == 8


def test_sets_colors_rarities_mana_value_and_rulings_per_set(synced, capsys):
    rows = sets_rows(synced, capsys)
    for code, row in rows.items():
        colors = ("colorless", "white", "blue", "black", "red", "green", "multicolored")
        assert sum(row[c] for c in colors) == row["cards"], code
        assert sum(row[r] for r in ("common", "uncommon", "rare", "mythic", "special", "bonus")) >= row["cards"]
    mkm = [c for c in REFERENCE if any(p["set_code"] == "MKM" for p in c["printings"])]
    assert rows["MKM"]["avg_mana_value"] == round(sum(c["mana_value"] for c in mkm) / len(mkm), 2)
    assert rows["MKM"]["rulings_per_card"] == round(sum(c["rulings_count"] for c in mkm) / len(mkm), 2)
    assert rows["MKM"]["uncommon"] == sum(1 for c in mkm if c["rarity"] == "uncommon")
    assert rows["MKM"]["rare"] == sum(1 for c in mkm if c["rarity"] == "rare")
    # the two Alchemy cards have no rulings in the sample
    assert rows["YMKM"]["cards_with_rulings_pct"] == 0.0 and rows["MKM"]["cards_with_rulings_pct"] == 100.0


def test_sets_report_no_french_translation_is_zero_percent_not_missing(synced, capsys):
    rows = sets_rows(synced, capsys)
    assert {row["rulings_fr_pct"] for row in rows.values()} == {0.0}


def test_sets_report_counts_french_translations(copy_of, capsys):
    data = copy_of("INSERT INTO ruling_translation SELECT ruling_id, 'fr', 'listeblanche', 'texte', false "
                   "FROM (SELECT DISTINCT cr.ruling_id FROM card_ruling cr JOIN card c USING (oracle_id) "
                   "WHERE c.name = 'Case of the Shifting Visage')")
    rows = sets_rows(data, capsys)
    assert rows["MKC"]["rulings_fr_pct"] == 100.0  # MKC's one card is Case of the Shifting Visage
    assert 0 < rows["MKM"]["rulings_fr_pct"] < 100


def test_sets_report_rounds_halves_up_as_the_colors_report_does(copy_of, capsys):
    """Test-only rows: a set TST of 80 cards, 54 of mana value 3 and 26 of mana value 2 (mean
    2.675), 23 of them with one ruling (28.75 % of the cards, 0.2875 rulings a card). Each figure
    is an exact half at the last digit shown: it goes up, as the wiki's shares of the colors
    report do (a float rounding gave 28.7 and 2.67)."""
    data = copy_of(
        "INSERT INTO card SELECT 'tst-' || i, 'Test Card ' || i, '', CASE WHEN i < 54 THEN 3 ELSE 2 END, [], [], "
        "'Enchantment', '', 'normal' FROM range(80) AS t(i)",
        "INSERT INTO printing SELECT 'tst-p-' || i, 'tst-' || i, 'TST', CAST(i AS VARCHAR), 'en', 'common', NULL, "
        "NULL, NULL, false, NULL FROM range(80) AS t(i)",
        "INSERT INTO card_ruling SELECT 'tst-' || i, (SELECT min(ruling_id) FROM ruling WHERE source = 'wotc'), 0 "
        "FROM range(23) AS t(i)")
    tst = sets_rows(data, capsys)["TST"]
    assert wiki_share(23, 80) == "28.8%"
    assert tst["cards"] == 80
    assert tst["cards_with_rulings_pct"] == 28.8
    assert tst["avg_mana_value"] == 2.68
    assert tst["rulings_per_card"] == 0.29


# --- rulings -------------------------------------------------------------------------------------

def test_rulings_report_on_the_sample(synced, capsys):
    code, out, _ = report(synced, capsys, "rulings", "--format", "csv")
    assert code == 0
    def same_sentence(text):  # the reference's copies differ in quotes, dashes and case only
        text = re.sub(r"[“”\"’']", "", text).lower().replace("—", "-")
        return " ".join(text.split())

    texts, sharing = {}, {}
    for card in REFERENCE:
        for r in card["rulings"]:
            texts.setdefault(same_sentence(r["text"]), set()).add(card["name"])
    for cards in texts.values():
        sharing[len(cards)] = sharing.get(len(cards), 0) + 1
    assert sharing == {1: 26, 2: 5, 13: 9}  # what the reference says, independent of the warehouse
    assert out == ("measure,value,count\n"
                   "rulings by source,wotc,40\n"
                   "rulings by date,2024-02-02,40\n"
                   "rulings by cards sharing them,1,26\n"
                   "rulings by cards sharing them,2,5\n"
                   "rulings by cards sharing them,13,9\n"
                   "sightings by origin,scryfall-api,153\n"
                   "rulings seen on one origin only,scryfall-api,40\n")


def test_rulings_seen_on_a_second_origin(copy_of, capsys):
    # test-only row: the wiki's Case page (seed 000) states this ruling too
    wiki_text = "Once a Case becomes solved, it stays solved until it leaves the battlefield."
    assert f"• {wiki_text}" in WIKI_PAGE
    data = copy_of("INSERT INTO ruling_sighting SELECT 'stest', ruling_id, 'test-doc', 'mtgwiki', NULL, 9, 'en', "
                   "$text, NULL, NULL, [] FROM ruling WHERE text = $text", params={"text": wiki_text})
    rows = report(data, capsys, "rulings", "--format", "csv")[1].splitlines()
    assert "sightings by origin,mtgwiki,1" in rows
    assert "rulings seen on one origin only,scryfall-api,39" in rows
    assert "rulings seen on several origins,2 origins,1" in rows


# --- --query and errors --------------------------------------------------------------------------

def test_query_of_the_latest_run_is_accepted(synced, capsys):
    assert report(synced, capsys, "colors", "--query", 'type:"Case"', "--format", "csv")[0] == 0


def test_a_query_the_warehouse_lacks_is_a_usage_error(synced, capsys):
    code, out, err = report(synced, capsys, "sets", "--query", "set:mkm")
    assert code == 2 and out == ""
    assert 'holds no cards of that query (it holds: type:"Case")' in err


def test_a_warehouse_of_several_queries_reports_all_cards_or_one_query(copy_of, capsys):
    # test-only rows: a second query whose current view holds the MKM cards
    data = copy_of("INSERT INTO sync_run (run_id, status, mode, query) "
                   "VALUES ('20991231T000000.000000Z', 'no_changes', 'offline', 'set:mkm')",
                   "INSERT INTO query_card SELECT DISTINCT 'set:mkm', oracle_id FROM printing WHERE set_code = 'MKM'")
    code, out, err = report(data, capsys, "colors", "--format", "csv")
    assert code == 0
    assert out.splitlines()[1].startswith('"set:mkm + type:""Case""",15 cards,')
    assert "2 queries" in err and "covers all of them" in err
    code, out, err = report(data, capsys, "colors", "--query", "set:mkm", "--format", "csv")
    assert code == 0 and err == ""
    # the 12 MKM cards: colorless 1, W 3, U 2, B 2, R 2, G 2
    assert out.splitlines()[1] == "set:mkm,12 cards,8.3%,25%,16.7%,16.7%,16.7%,16.7%"
    code, out, _ = report(data, capsys, "sets", "--query", "set:mkm", "--format", "csv")
    assert [line.split(",")[0] for line in out.splitlines()[1:]] == ["MKM", "PMKM"]


def test_a_query_counts_the_sightings_on_its_own_cards_only(copy_of, capsys):
    """Test-only rows: a second query whose current view holds the 12 MKM cards. The 9 rulings
    every paper Case shares are also seen on the one Case printed only in MKC; those sightings
    are of a card of no MKM printing and stay out of the query's counts."""
    data = copy_of("INSERT INTO sync_run (run_id, status, mode, query) "
                   "VALUES ('20991231T000000.000000Z', 'no_changes', 'offline', 'set:mkm')",
                   "INSERT INTO query_card SELECT DISTINCT 'set:mkm', oracle_id FROM printing WHERE set_code = 'MKM'")
    con = duckdb.connect(str(data / "warehouse" / "casefile.duckdb"), read_only=True)
    try:
        links, everywhere = con.execute(
            "SELECT (SELECT count(*) FROM card_ruling WHERE oracle_id IN (SELECT oracle_id FROM query_card "
            "        WHERE query = 'set:mkm')), "
            "       (SELECT count(*) FROM ruling_sighting WHERE ruling_id IN (SELECT ruling_id FROM card_ruling "
            "        WHERE oracle_id IN (SELECT oracle_id FROM query_card WHERE query = 'set:mkm')))").fetchone()
    finally:
        con.close()
    assert everywhere > links  # the shared rulings are seen on cards outside the query too
    rows = report(data, capsys, "rulings", "--query", "set:mkm", "--format", "csv")[1].splitlines()
    assert f"sightings by origin,scryfall-api,{links}" in rows


def _largest_step(con, sql: str, profile) -> tuple[int, dict[str, int]]:
    """Run ``sql`` under DuckDB's profiler: the most rows any step of its plan put out, and the
    rows each table scan read (by table)."""
    con.execute("PRAGMA enable_profiling = 'json'")
    con.execute(f"PRAGMA profiling_output = '{profile}'")
    con.execute(sql).fetchall()
    con.execute("PRAGMA disable_profiling")
    steps, scans = [], {}
    nodes = json.loads(profile.read_text("utf-8"))["operator"]
    while nodes:
        node = nodes.pop()
        rows = node.get("operator_cardinality", node.get("intermediate_rows"))
        assert rows is not None, f"no row count in the profile: {sorted(node)}"
        steps.append(rows)
        table = node.get("extra_info", {}).get("Table")
        if table:
            scans[table.rsplit(".", 1)[-1]] = rows
        nodes.extend(node.get("children", []))
    return max(steps), scans


def test_the_scope_of_a_report_does_not_grow_with_cards_times_runs(copy_of, capsys, tmp_path):
    # test-only rows: a year of daily runs of the sample's query. The scope of every report (its
    # queries, each with its latest run) must not meet each card of a query with each of its
    # runs: 15 cards x 365 runs here, 35,000 x 365 for a year of a bulk query (0.9 s a report).
    data = copy_of("INSERT INTO sync_run SELECT s.* REPLACE (strftime(TIMESTAMP '2099-01-01' + to_days(CAST(d AS INTEGER)), "
                   "'%Y%m%dT000000.000000Z') AS run_id) FROM sync_run AS s, range(364) AS t(d)")
    con = duckdb.connect(str(data / "warehouse" / "casefile.duckdb"), read_only=True)
    try:
        cards, runs = con.execute("SELECT (SELECT count(*) FROM query_card), (SELECT count(*) FROM sync_run)").fetchone()
        largest, scans = _largest_step(con, (ROOT / "sql" / "reports" / "scope.sql").read_text("utf-8"),
                                       tmp_path / "profile.json")
    finally:
        con.close()
    assert (cards, runs) == (15, 365)
    assert scans == {"query_card": cards, "sync_run": runs}  # the profile's counts are read
    assert largest <= cards + runs
    out = report(data, capsys, "colors", "--format", "csv")[1]
    assert out.splitlines()[1].startswith('"type:""Case""",15 cards,')
    page = report(data, capsys, "colors", "--query", 'type:"Case"', "--format", "html")[1]
    assert "latest run 20991230T000000.000000Z" in page


def test_report_without_a_warehouse_says_what_to_do(data_dir, capsys):
    code, _, err = report(data_dir, capsys, "sets")
    assert code == 78 and "casefile sync" in err


def test_all_in_csv_is_a_usage_error(synced, capsys):
    code, _, err = report(synced, capsys, "all", "--format", "csv")
    assert code == 2 and "one report" in err


def test_all_prints_each_report_under_its_title(synced, capsys):
    out = report(synced, capsys, "all", "--format", "markdown")[1]
    assert [l for l in out.splitlines() if l.startswith("### ")] == [
        "### Set statistics", "### Statistics by color", "### Rulings"]
    assert set(json.loads(report(synced, capsys, "all", "--format", "json")[1])) == {"sets", "colors", "rulings"}


def test_cli_choices_are_the_reports():
    param = next(p for p in main_group.commands["report"].params if p.name == "name")
    assert tuple(param.type.choices) == REPORT_NAMES


def test_out_writes_the_file_and_says_so(synced, tmp_path, capsys):
    target = tmp_path / "reports" / "colors.md"
    code, out, _ = report(synced, capsys, "colors", "--format", "markdown", "--out", str(target))
    assert code == 0 and out == f"wrote {target} (colors report, markdown)\n"
    assert target.read_text("utf-8").startswith("| statistics | cards |")
    assert [p.name for p in target.parent.iterdir()] == ["colors.md"]  # no temp file left behind


def test_out_through_a_symbolic_link_writes_the_file_it_names(synced, tmp_path, capsys):
    """A link kept in a fixed place (a web root) pointing at the file published: the file is
    replaced, the link stays, as ``export --out`` treats a link. A link in a loop is a usage error."""
    published = tmp_path / "site" / "colors.md"
    published.parent.mkdir()
    published.write_text("old", "utf-8")
    link = tmp_path / "colors.md"
    link.symlink_to(published)
    code, _, _ = report(synced, capsys, "colors", "--format", "markdown", "--out", str(link))
    assert code == 0 and link.is_symlink()
    assert published.read_text("utf-8").startswith("| statistics | cards |")
    loop = tmp_path / "loop.md"
    loop.symlink_to(loop)
    code, _, err = report(synced, capsys, "colors", "--out", str(loop))
    assert code == 2 and "Traceback" not in err and loop.is_symlink()


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes are a POSIX thing")
def test_out_to_a_named_pipe_writes_into_it_and_leaves_the_pipe(synced, tmp_path, capsys):
    """``--out /dev/stdout``, ``/dev/null`` or a named pipe a reader waits on: the report goes
    into it. A temp file renamed over it would replace the pipe (or, as root, /dev/null) by a
    file, and the reader would get nothing."""
    fifo = tmp_path / "report.pipe"
    os.mkfifo(fifo)
    received: list[bytes] = []
    reader = threading.Thread(target=lambda: received.append(fifo.read_bytes()))
    reader.start()
    try:
        code, _, err = report(synced, capsys, "colors", "--format", "markdown", "--out", str(fifo))
    finally:
        if reader.is_alive():  # the report never opened the pipe: let the reader go
            with open(fifo, "wb"):
                pass
        reader.join(10)
    assert code == 0, err
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    assert received and received[0].decode("utf-8").startswith("| statistics | cards |")
    assert [p.name for p in tmp_path.iterdir()] == ["report.pipe"]  # no temp file beside it


def test_out_dev_stdout_with_stdout_appended_to_a_file_adds_to_the_file(synced, tmp_path):
    """`casefile report … --out /dev/stdout >> log`: /dev/stdout leads to the file, a regular one,
    which was replaced by the report (the lines before it lost)."""
    import subprocess
    import sys

    from conftest import subprocess_env

    log = tmp_path / "log"
    log.write_text("the lines before\n")
    with open(log, "a") as appended:
        done = subprocess.run([sys.executable, "-m", "pipeline", "report", "colors", "--format", "csv", "--out",
                               "/dev/stdout"], stdout=appended, stderr=subprocess.PIPE, text=True,
                              env=subprocess_env(synced), timeout=120)
    assert done.returncode == 0, done.stderr
    text = log.read_text()
    assert text.startswith("the lines before\nstatistics,cards,") and [p.name for p in tmp_path.iterdir()] == ["log"]
    assert "wrote /dev/stdout" not in text  # the report alone: it was followed by the line saying it was written


def test_out_dev_stdout_into_a_pipe_is_the_report_alone(synced):
    """`casefile report colors --format json --out /dev/stdout | python3 -m json.tool` failed on
    the "wrote /dev/stdout" line printed after the report."""
    import json
    import subprocess
    import sys

    from conftest import subprocess_env

    done = subprocess.run([sys.executable, "-m", "pipeline", "report", "colors", "--format", "json", "--out",
                           "/dev/stdout"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                          env=subprocess_env(synced), timeout=120)
    assert done.returncode == 0, done.stderr
    assert isinstance(json.loads(done.stdout), (list, dict))


# --- HTML ----------------------------------------------------------------------------------------

class TagBalance(HTMLParser):
    """Checks that every element is closed in order (void elements aside)."""

    VOID = {"meta", "br", "hr", "img", "input", "link"}

    def __init__(self):
        super().__init__()
        self.stack, self.errors, self.tags = [], [], []

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        if tag not in self.VOID:
            self.stack.append(tag)

    def handle_startendtag(self, tag, attrs):
        self.tags.append(tag)

    def handle_endtag(self, tag):
        if not self.stack or self.stack.pop() != tag:
            self.errors.append(tag)


def check_page(text: str) -> lxml_html.HtmlElement:
    balance = TagBalance()
    balance.feed(text)
    balance.close()
    assert balance.errors == [] and balance.stack == []
    etree.fromstring(text.split("\n", 1)[1].encode("utf-8"))  # well-formed as XML too (after the doctype)
    lowered = text.lower()
    for outside in ("<script", "src=", "<link", "url(", "@import", "<iframe"):
        assert outside not in lowered, outside  # self-contained: nothing loaded, no JavaScript
    return lxml_html.fromstring(text)


def test_html_page_of_all_reports_has_tables_and_svg_charts(synced, tmp_path, capsys):
    target = tmp_path / "report.html"
    assert report(synced, capsys, "all", "--format", "html", "--out", str(target))[0] == 0
    text = target.read_text("utf-8")
    doc = check_page(text)
    assert [h.text_content() for h in doc.iter("h2")] == ["Set statistics", "Statistics by color", "Rulings"]
    charts = [svg.find("title").text for svg in doc.iter("svg")]
    assert charts == ["Cards by color per set", "Cards by rarity per set", "Cards by color", "Rulings per card"]
    assert len(doc.findall(".//table")) == 4
    assert [h.text_content() for h in doc.iter("h3")][-1] == "Rulings seen on one origin only"
    one_origin = doc.findall(".//table")[-1]
    assert len(one_origin.findall(".//tbody/tr")) == 40  # the sample has one origin: every ruling
    per_card = next(svg for svg in doc.iter("svg") if svg.find("title").text == "Rulings per card")
    assert "Case of the Filched Falcon" in [t.text for t in per_card.iter("text")]
    assert "Wizards of the Coast Fan Content Policy" in text


def test_html_escapes_text_from_the_data(copy_of, capsys):
    # test-only copy: a ruling and a card name carrying markup, which must show as text
    data = copy_of(f"UPDATE ruling SET text = text || ' {SCRIPT}' WHERE ruling_id = "
                   "(SELECT min(ruling_id) FROM ruling)",
                   f"UPDATE card SET name = '{SCRIPT} & co' WHERE name = 'Case of the Filched Falcon'")
    code, text, err = report(data, capsys, "all", "--format", "html")
    assert code == 0, err
    assert "<script" not in text.lower()
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in text
    doc = check_page(text)
    assert len(list(doc.iter("svg"))) == 4
    cells = [td.text_content() for td in doc.iter("td")]
    assert any(c.endswith(SCRIPT) for c in cells)  # shown as text in the table of rulings
    labels = [t.text for svg in doc.iter("svg") for t in svg.iter("text")]
    assert f"{SCRIPT} & co" in labels  # and as a chart label


def test_html_names_the_run_and_is_the_same_for_the_same_warehouse(synced, capsys):
    con = duckdb.connect(str(synced / "warehouse" / "casefile.duckdb"), read_only=True)
    run_id = con.execute("SELECT run_id FROM sync_run").fetchone()[0]
    con.close()
    first = report(synced, capsys, "sets", "--format", "html")[1]
    assert f'query type:&quot;Case&quot; · latest run {run_id}' in first
    assert first == report(synced, capsys, "sets", "--format", "html")[1]


def test_a_rules_ingest_after_the_sync_is_not_the_latest_run_of_the_page(copy_of, capsys):
    """Test-only row: a rules ingest loaded after the sample's sync (a run of no query, which
    reads no card). The page of the warehouse's one query names that query's latest run, with or
    without --query: the same page either way."""
    data = copy_of("INSERT INTO sync_run (run_id, status, mode, query) "
                   "VALUES ('20991231T000000.000000Z', 'ok', 'ingest', NULL)")
    con = duckdb.connect(str(data / "warehouse" / "casefile.duckdb"), read_only=True)
    sync_run = con.execute("SELECT run_id FROM sync_run WHERE mode <> 'ingest'").fetchone()[0]
    con.close()
    page = report(data, capsys, "colors", "--format", "html")[1]
    assert f"latest run {sync_run}" in page
    assert page == report(data, capsys, "colors", "--query", 'type:"Case"', "--format", "html")[1]


def test_html_format_of_the_shared_formatter_escapes_headers_and_cells():
    from pipeline.formats import render

    assert render(["name", "a<b"], [("x & <y>", 2), (None, 1.5)], "html") == (
        "<table>\n<thead><tr><th>name</th><th>a&lt;b</th></tr></thead>\n<tbody>\n"
        '<tr><td>x &amp; &lt;y&gt;</td><td class="num">2</td></tr>\n'
        '<tr><td></td><td class="num">1.5</td></tr>\n'
        "</tbody>\n</table>\n")


def test_rulings_report_on_the_whole_sample(sample_warehouse, capsys):
    """With the wiki and card pages: 5 wiki-only rulings (undated, on no card), every WotC
    ruling seen on three origins (nine of them on the wiki too)."""
    code, out, _ = report(sample_warehouse, capsys, "rulings", "--format", "csv")
    assert code == 0
    assert out == ("measure,value,count\n"
                   "rulings by source,mtgwiki,5\n"
                   "rulings by source,wotc,40\n"
                   "rulings by date,2024-02-02,40\n"
                   "rulings by date,undated,5\n"
                   "rulings by cards sharing them,0,5\n"
                   "rulings by cards sharing them,1,26\n"
                   "rulings by cards sharing them,2,5\n"
                   "rulings by cards sharing them,13,9\n"
                   "sightings by origin,listeblanche,153\n"
                   "sightings by origin,mtgwiki,14\n"
                   "sightings by origin,scryfall-api,153\n"
                   "sightings by origin,scryfall-page,153\n"
                   "rulings seen on one origin only,mtgwiki,5\n"
                   "rulings seen on several origins,3 origins,31\n"
                   "rulings seen on several origins,4 origins,9\n")


def test_a_query_without_a_wiki_page_counts_no_wiki_ruling_nor_wiki_sighting(sample_warehouse, tmp_path, capsys):
    """Test-only rows, in a copy of the whole sample: a second query, set:mkm, whose current view
    holds the 12 MKM cards and whose run fetched nothing (set:mkm names no card type: it has no
    MTG wiki page). The Case page's five own rulings and its 14 sightings are type:"Case"'s."""
    import shutil

    data = tmp_path / "data"
    shutil.copytree(sample_warehouse, data)
    con = duckdb.connect(str(data / "warehouse" / "casefile.duckdb"))
    try:
        con.execute("INSERT INTO sync_run (run_id, status, mode, query) "
                    "VALUES ('20991231T000000.000000Z', 'no_changes', 'offline', 'set:mkm')")
        con.execute("INSERT INTO query_card SELECT DISTINCT 'set:mkm', oracle_id FROM printing WHERE set_code = 'MKM'")
    finally:
        con.close()
    rows = report(data, capsys, "rulings", "--query", "set:mkm", "--format", "csv")[1].splitlines()
    assert not [row for row in rows if "mtgwiki" in row]
    assert "rulings by cards sharing them,0" not in "\n".join(rows)
    rows = report(data, capsys, "rulings", "--query", 'type:"Case"', "--format", "csv")[1].splitlines()
    assert "rulings by source,mtgwiki,5" in rows and "sightings by origin,mtgwiki,14" in rows


def test_two_queries_that_fetched_the_same_wiki_page_each_count_its_rulings(tmp_path, capsys):
    """The sample, then a copy of it CONSTRUCTED as a run of t:case (support.runs.recorded_as:
    query and search URLs rewritten, the Case wiki page byte-identical, so one document of the
    raw store). The wiki page is in both queries' current views: each query's report counts its
    five wiki-only rulings and 14 wiki sightings, as a warehouse of that query alone does."""
    from support.runs import recorded_as

    other = recorded_as(tmp_path / "t-case", "t:case")
    both, alone = tmp_path / "both", tmp_path / "alone"
    assert main(["--data-dir", str(both), "-q", "sync", "--offline"]) == 0
    assert main(["--data-dir", str(both), "-q", "sync", "--offline", str(other)]) == 0
    assert main(["--data-dir", str(alone), "-q", "sync", "--offline", str(other)]) == 0
    capsys.readouterr()
    for query in ('type:"Case"', "t:case"):
        rows = report(both, capsys, "rulings", "--query", query, "--format", "csv")[1].splitlines()
        assert "rulings by source,mtgwiki,5" in rows and "sightings by origin,mtgwiki,14" in rows, query
    assert report(both, capsys, "rulings", "--query", "t:case", "--format", "csv") \
        == report(alone, capsys, "rulings", "--query", "t:case", "--format", "csv")


def test_a_warehouse_made_before_query_wiki_page_reports_its_wiki_page_and_a_writer_fills_it(tmp_path, capsys):
    """A warehouse of the sample whose query_wiki_page is dropped, as a warehouse made before the
    table has none (CONSTRUCTED by that DROP): a read-only report still finds the query's wiki
    page (through the first run that fetched it), and the next writer to open the file makes the
    table and fills it, before any load."""
    data = tmp_path / "data"
    assert main(["--data-dir", str(data), "-q", "sync", "--offline"]) == 0
    capsys.readouterr()
    expected = report(data, capsys, "rulings", "--query", 'type:"Case"', "--format", "csv")
    assert "rulings by source,mtgwiki,5" in expected[1].splitlines()
    db = data / "warehouse" / "casefile.duckdb"
    con = duckdb.connect(str(db))
    [(doc_id,)] = con.execute("SELECT doc_id FROM query_wiki_page").fetchall()
    con.execute("DROP TABLE query_wiki_page")
    con.close()
    assert report(data, capsys, "rulings", "--query", 'type:"Case"', "--format", "csv") == expected
    from pipeline.load.warehouse import open_writer

    writer = open_writer(db)
    try:
        assert writer.execute("SELECT query, doc_id FROM query_wiki_page").fetchall() == [('type:"Case"', doc_id)]
    finally:
        writer.close()
    assert report(data, capsys, "rulings", "--query", 'type:"Case"', "--format", "csv") == expected


def test_a_large_warehouse_gets_a_readable_page(synced, tmp_path, capsys, monkeypatch):
    """Charts and detail tables stop at a readable size (the reports' own tables keep every row);
    the headings say what is shown of how much. Limits lowered here so that the sample exceeds them."""
    from pipeline import report as report_module

    monkeypatch.setattr(report_module, "CHART_BARS", 3)
    monkeypatch.setattr(report_module, "DETAIL_ROWS", 10)
    target = tmp_path / "report.html"
    assert report(synced, capsys, "all", "--format", "html", "--out", str(target))[0] == 0
    doc = check_page(target.read_text("utf-8"))
    per_card = next(svg for svg in doc.iter("svg") if svg.find("title").text.startswith("Rulings per card"))
    assert per_card.find("title").text == "Rulings per card (the first 3 cards, most rulings first, of 15)"
    assert len(per_card.findall(".//rect/title")) == 3  # one bar per card, one series
    headings = [h.text_content() for h in doc.iter("h3")]
    assert "Cards by color per set (the first 3 sets of 4)" in headings
    assert headings[-1] == "Rulings seen on one origin only (the first 10 of 40; all of them: casefile sql)"
    assert len(doc.findall(".//table")[-1].findall(".//tbody/tr")) == 10
    sets_table = doc.findall(".//table")[0]
    assert len(sets_table.findall(".//tbody/tr")) == 4  # the report's own table keeps every set


def test_a_wiki_sighting_folded_into_a_ruling_of_cards_outside_the_query_counts_for_the_query(
        sample_warehouse, tmp_path, capsys):
    """Test-only rows, in a copy of the whole sample: a second query whose current view holds one
    Case card (one the nine rulings every paper Case shares are not on) and the Case wiki page.
    Nine of the page's 14 sightings are copies of those WotC rulings, on other Case cards; they are on the query's page, so its report counts them, as it counts
    the page's five own rulings."""
    import shutil

    data = tmp_path / "data"
    shutil.copytree(sample_warehouse, data)
    con = duckdb.connect(str(data / "warehouse" / "casefile.duckdb"))
    try:
        [(doc_id,)] = con.execute("SELECT doc_id FROM query_wiki_page").fetchall()
        [(oracle_id,)] = con.execute("SELECT oracle_id FROM card WHERE name = 'Case of the Lost Witness'").fetchall()
        folded = con.execute(
            "SELECT count(*) FROM ruling_sighting AS s JOIN ruling AS r USING (ruling_id) "
            "WHERE s.doc_id = $doc AND r.source <> 'mtgwiki' AND r.ruling_id NOT IN "
            "(SELECT ruling_id FROM card_ruling WHERE oracle_id = $card)", {"doc": doc_id, "card": oracle_id}).fetchone()[0]
        con.execute("INSERT INTO sync_run (run_id, status, mode, query) "
                    "VALUES ('20991231T000000.000000Z', 'no_changes', 'offline', 'one case')")
        con.execute("INSERT INTO query_card VALUES ('one case', $card)", {"card": oracle_id})
        con.execute("INSERT INTO query_wiki_page VALUES ('one case', $doc)", {"doc": doc_id})
    finally:
        con.close()
    assert folded > 0  # some of the page's sightings fold into rulings of cards outside the query
    rows = report(data, capsys, "rulings", "--query", "one case", "--format", "csv")[1].splitlines()
    assert "rulings by source,mtgwiki,5" in rows
    assert "sightings by origin,mtgwiki,14" in rows
