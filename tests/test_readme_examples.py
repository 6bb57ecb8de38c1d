"""The README's command examples, run as written.

Every ``casefile …`` line of the ```sh blocks under "## Commands" is read from README.md (never
copied here) and run through the real CLI (``pipeline.cli.main``, in this process) on a copy of a
data folder made the way ``make sample`` makes it: the bundled offline sample, then the rules
excerpt. A ``< FILE`` at the end of a line is the command's stdin, as in a shell. Each must exit 0, or the exit code listed in EXIT_CODES with the README's words for it.
Lines that need what a test cannot have (the live sites) are in SKIPPED, each with its reason,
and SKIPPED must name lines the README holds.

Where the README shows what a command prints (a ``$ casefile …`` line and the lines under it, the
whole-line comments under a command, the block right after an ```sh block, or a block the text
introduces with the command), the real output is compared with it after NORMALIZE: run ids, times
and paths that differ from one run to the next. An example that leaves lines out says so with
"…": a line "…" stands for any number of lines, a line ending in " …" for the rest of that line
and any lines after it. Everything else must be there, line for line.
"""

from __future__ import annotations

import contextlib
import difflib
import io
import json
import logging
import os
import re
import shlex
import shutil
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple

import pytest

from pipeline.cli import main, main_group

from conftest import FIXTURES, ROOT
from support.fake_scryfall import FakeScryfall
from support.runs import change_history_runs
from support.sample_data import sample_api_data

README_TEXT = (ROOT / "README.md").read_text("utf-8")
MAKEFILE_TEXT = (ROOT / "Makefile").read_text("utf-8")
EXCERPT = FIXTURES / "rules" / "cr_case_excerpt.txt"

# Example lines that are not run, and why. Each must be a command line of the README.
# (`casefile sync --query '*' --plan` runs: it asks the API for one search page, here the loopback
# server's, see ENVIRONMENT; with no server at all it would exit 75 after its retries.)
SKIPPED = {
    "casefile sync":
        "live: Scryfall's API, the MTG wiki and listeblanche.fr; the tests have no network",
    "casefile sync --query 'set:mkm' --multilingual":
        "live: Scryfall's API and listeblanche.fr; the tests have no network",
    "casefile sync --sources api,wiki,listeblanche,scryfall-page":
        "live: the four web sources; the tests have no network",
    "casefile sync --query '*' --bulk always":
        "live: Scryfall's bulk files (hundreds of MB), which the loopback server does not serve",
    "casefile doctor --online --format json":
        "asks each live source one question; the tests have no network",
    'casefile rules ingest "https://media.wizards.com/2024/downloads/MagicCompRules 20240920.txt"':
        "downloads the rules from Wizards' site; the tests have no network",
}

# Placeholders of the examples, and what stands for them here.
SUBSTITUTIONS = {
    # a recorded run to replay, or to list the changes after: the sample's sync run
    "20261130T162008.568924Z": lambda w: w.sync_run_id,
    # "any Scryfall-compatible server": the loopback one
    "http://127.0.0.1:8080": lambda w: w.fake.url,
    # a path inside the checkout, where the README's commands are typed
    "tests/fixtures/rules/cr_case_excerpt.txt": lambda w: str(EXCERPT),
}

# The environment every example runs in (every other CASEFILE_* variable is unset).
ENVIRONMENT = {
    # set as "Scheduling" sets it; without it `casefile doctor` adds a warning its example does not show
    "CASEFILE_CONTACT": lambda w: "ops@example.org",
    # Scryfall's API is the loopback server of the tests, serving the bundled sample's cards
    # (the README's `casefile sync --plan` example was made so, its URL shown as Scryfall's)
    "CASEFILE_API_URL": lambda w: w.fake.url,
}

# Exit codes other than 0, with the words of the README's "Exit codes" table that say so.
EXIT_CODES = {
    "casefile sync --query 'badop:x'": (2, "a query Scryfall rejects"),
}

# The data folder an example starts from, when it is not the `make sample` one ("sample").
START = {
    # its example output is that of the first ingest
    "casefile rules ingest tests/fixtures/rules/cr_case_excerpt.txt": "synced",
}


def _later_edition(world: World, cwd: Path) -> None:
    """The excerpt again as an edition effective November 8, 2024, one rule re-worded."""
    text = EXCERPT.read_text("utf-8")
    assert "These rules are effective as of September 20, 2024." in text and "this Case becomes solved." in text
    later = (text.replace("These rules are effective as of September 20, 2024.",
                          "These rules are effective as of November 8, 2024.")
                 .replace("this Case becomes solved.", "it becomes solved."))
    (cwd / "cr-2024-11-08.txt").write_text(later, "utf-8")
    assert world.cli(["rules", "ingest", str(cwd / "cr-2024-11-08.txt")], cwd).code == 0


QUERY_FILE = "card-rulings.sql"


def _query_file(world: World, cwd: Path) -> None:
    """The query file the README shows (the ```sql block "With `card-rulings.sql` holding")."""
    (cwd / QUERY_FILE).write_text("\n".join(_block(QUERY_FILE_HEAD).lines) + "\n", "utf-8")


# What an example needs beyond its data folder.
PREPARE = {
    # the sample holds one edition of the rules (2024-09-20); the example diffs it with a later one
    "casefile rules diff 2024-09-20 2024-11-08": _later_edition,
    # the README's query file, in the folder the example runs in
    "casefile sql --file card-rulings.sql --param \"card=Case of the Gorgon's Kiss\" --param since=2024":
        _query_file,
    "casefile sql - --param \"card=Case of the Gorgon's Kiss\" --param since=2024 < card-rulings.sql": _query_file,
}

class Introduced(NamedTuple):
    command: str  # must be named in the README's section of the block
    start: str  # the data folder it starts from
    times: int = 1  # how many times it runs there in turn (the block shows the output of each)
    sizes_differ: str = ""  # why the sizes shown (SIZE) are not this data's


# Blocks under "## Commands" that show a command's output but are introduced by the text (not by
# a `$ ` line, nor right after the ```sh block of the command): a line of the block's head, and
# how the output is made.
INTRODUCED = {
    # "Its summary line says what it did": a first sync, then one that finds nothing new
    "sync 20261130T162438.497298Z (offline)": Introduced("casefile sync --offline", "empty", times=2),
    # "The last one, on the bench's 1× data after its day-2 sync, prints": here the sample after
    # its second sync
    "deleted 1 run(s) older than 0 day(s)": Introduced("casefile prune --keep-days 0", "synced twice",
                                                       sizes_differ="the README's size freed is the bench's"),
    "statistics   cards": Introduced("casefile report colors", "sample"),
    "measure                          value": Introduced("casefile report rulings", "sample"),
    "| set | set_name | cards |": Introduced("casefile report sets --format markdown", "sample"),
}

# Blocks under "## Commands" that are not one command's output as it prints it (files it writes,
# an abridged table): a line of the block's head, and the test of this module that checks it.
CHECKED_APART = {
    '{"ruling_id":"r0c596d85cf2c799"': "test_the_jsonl_rows_shown_are_rows_of_an_export",
    '"generator": "casefile export"': "test_the_manifest_shown_is_that_of_an_export_of_the_api_sample",
    "| kind | card | field | before | after |": "test_the_changes_shown_are_those_of_the_constructed_pair_of_runs",
    "SELECT r.published_at, r.text": "test_the_query_file_shown_is_the_one_its_examples_read",
}
QUERY_FILE_HEAD = "SELECT r.published_at, r.text"

# The block right after an ```sh block of several commands shows the output of this one.
SHOWN_AFTER = {
    "card": 'casefile card "Case of the Shifting Visage"',
    "search": 'casefile search "copiable values"',
    "doctor": "casefile doctor",
    "rules": "casefile rules ingest tests/fixtures/rules/cr_case_excerpt.txt",
    "rule": "casefile rule 719.3a",
    "export": "casefile export rulings --format parquet --out exports/rulings",
    "sql": "casefile sql --file card-rulings.sql --param \"card=Case of the Gorgon's Kiss\" --param since=2024",
}

# NORMALIZE: what differs from one run to the next, or between the README's machine and this
# one. Run ids and times are replaced on both sides; the README's data folder (`/path/to/casefile/data`,
# `/srv/casefile/data`) is the examples' `data`; the folder an example runs in is the README's
# `/path/to`; the loopback server's URL is Scryfall's. Sizes (SIZE) only where said: the raw
# store of `make sample` holds the ingested rules file's `file:` URL, which names the checkout's
# path; and where INTRODUCED says why. Trailing spaces are dropped.
RUN_ID = re.compile(r"\b\d{8}T\d{6}\.\d{6}Z\b")
TIMESTAMP = re.compile(r"\b\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z\b")
SIZE = re.compile(r"\b\d[\d,.]* (B|KB|MB|GB)\b")
README_DATA_DIRS = ("/path/to/casefile/data", "/srv/casefile/data")


def _placeholders(text: str, sizes: bool) -> str:
    text = TIMESTAMP.sub("<time>", RUN_ID.sub("<run id>", text))
    return SIZE.sub("<size>", text) if sizes else text


def normalize_shown(lines: list[str], sizes: bool = False) -> list[str]:
    text = "\n".join(lines)
    for stand_in in README_DATA_DIRS:
        text = text.replace(stand_in, "data")
    return [line.rstrip() for line in _placeholders(text, sizes).split("\n")]


def normalize_real(results: list[Result], world: World, sizes: bool = False) -> list[str]:
    lines = []
    for r in results:
        text = r.text.replace(str(r.cwd), "/path/to").replace(world.fake.url, "https://api.scryfall.com")
        lines += [line.rstrip() for line in _placeholders(text, sizes).splitlines()]
    return lines


# --- reading the README ------------------------------------------------------------------


@dataclass
class Block:
    kind: str  # "fence", "table" or "text" (a paragraph)
    lang: str
    lines: list[str]
    line: int  # of the block's first line in README.md
    part: str  # the "## " heading
    section: str  # the command of the "### `casefile …`" heading, else ""


def read_blocks(text: str) -> list[Block]:
    blocks, part, section = [], "", ""
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("```"):
            j = i + 1
            while not lines[j].startswith("```"):
                j += 1
            blocks.append(Block("fence", line[3:].strip(), lines[i + 1:j], i + 2, part, section))
            i = j + 1
            continue
        if line.startswith("## "):
            part, section = line[3:].strip(), ""
        elif line.startswith("### "):
            m = re.match(r"### `casefile (\w+)`", line)
            section = m.group(1) if m else ""
        elif line.startswith("#"):
            pass  # a lower heading: the section goes on
        elif line.strip():
            kind = "table" if line.startswith("|") else "text"
            j = i
            while j < len(lines) and lines[j].strip() and not lines[j].startswith(("```", "#")) \
                    and lines[j].startswith("|") == (kind == "table"):
                j += 1
            blocks.append(Block(kind, "", lines[i:j], i + 1, part, section))
            i = j
            continue
        i += 1
    return blocks


def strip_comment(source: str) -> str:
    """The command without its trailing `# comment` (a # outside quotes, after a space)."""
    quote = None
    for k, ch in enumerate(source):
        if quote:
            quote = None if ch == quote else quote
        elif ch in "'\"":
            quote = ch
        elif ch == "#" and k and source[k - 1].isspace():
            return source[:k].rstrip()
    return source.rstrip()


@dataclass
class Example:
    text: str  # as written, without its comment
    words: list[str]
    line: int
    section: str
    comments: list[str] = field(default_factory=list)  # whole-line comments right after it

    @property
    def key(self) -> str:
        return " ".join(self.text.split())


def sh_examples(block: Block) -> list[Example]:
    found, lines, i = [], block.lines, 0
    while i < len(lines):
        if not lines[i].startswith("casefile "):
            i += 1
            continue
        source, j = lines[i], i
        while True:  # a quoted argument may go on over the next lines
            try:
                words = shlex.split(source, comments=True)
                break
            except ValueError:
                j += 1
                source += "\n" + lines[j]
        example = Example(strip_comment(source), words, block.line + i, block.section)
        j += 1
        while j < len(lines) and lines[j].startswith("#"):
            example.comments.append(lines[j].lstrip("#").strip())
            j += 1
        found.append(example)
        i = j
    return found


BLOCKS = read_blocks(README_TEXT)
COMMANDS_PART = [b for b in BLOCKS if b.part == "Commands"]
EXAMPLES = [e for b in COMMANDS_PART if b.kind == "fence" and b.lang == "sh" for e in sh_examples(b)]


def _head(block: Block, key: str) -> bool:
    return key in "\n".join(block.lines[:3])


@dataclass
class Shown:
    """An output the README shows, and the command (a README example's key) that prints it."""
    command: str
    lines: list[str]
    line: int
    how: str
    start: str | None = None  # the data folder the command starts from; None: as the example does
    times: int = 1  # the block shows the output of the command run this many times in turn
    sizes_differ: bool = False

    @property
    def id(self) -> str:
        return f"L{self.line} {self.command[:60]}"


def shown_outputs() -> tuple[list[Shown], list[str]]:
    """Every output of a command shown under "## Commands", and what this module cannot place (the
    output blocks it does not know how to compare, and why)."""
    shown, unexplained = [], []
    for example in EXAMPLES:
        if example.comments:
            shown.append(Shown(example.key, example.comments, example.line, "the comment under it"))
    previous = None
    for block in COMMANDS_PART:
        introduced = [k for k in INTRODUCED if block.kind != "text" and _head(block, k)]
        if introduced:
            intro = INTRODUCED[introduced[0]]
            section = "\n".join(line for b in COMMANDS_PART if b.section == block.section for line in b.lines)
            if intro.command not in section:
                unexplained.append(f"line {block.line}: INTRODUCED names {intro.command}, which its section does not")
            shown.append(Shown(intro.command, block.lines, block.line, "the block the text introduces",
                               intro.start, intro.times, bool(intro.sizes_differ)))
        elif block.kind == "fence" and block.lang != "sh":
            if block.lines[0].startswith("$ casefile ") and not any(l.startswith("$ ") for l in block.lines[1:]):
                shown.append(Shown(" ".join(block.lines[0][2:].split()), block.lines[1:], block.line, "its $ line"))
            elif block.lines[0].startswith("$ "):
                unexplained.append(f"line {block.line}: a block of several $ lines")
            elif previous is not None and previous.kind == "fence" and previous.lang == "sh":
                candidates = sh_examples(previous)
                if len(candidates) > 1:
                    candidates = [e for e in candidates if e.key == SHOWN_AFTER.get(block.section)]
                if len(candidates) == 1:
                    shown.append(Shown(candidates[0].key, block.lines, block.line, "the block after its sh block"))
                else:
                    unexplained.append(f"line {block.line}: SHOWN_AFTER[{block.section!r}] must name a command "
                                       "of the sh block before it")
            elif not any(_head(block, k) for k in CHECKED_APART):
                unexplained.append(f"line {block.line}: {block.lines[0]}")
        previous = block
    return shown, unexplained


SHOWN, UNEXPLAINED = shown_outputs()


# --- running the examples ----------------------------------------------------------------


@dataclass
class Result:
    code: int
    out: str
    err: str
    cwd: Path

    @property
    def text(self) -> str:
        """What a terminal shows: stdout, then stderr."""
        return self.out + self.err


def _substitute(world: World, word: str) -> str:
    for placeholder, value in SUBSTITUTIONS.items():
        if placeholder in word:
            word = word.replace(placeholder, value(world))
    return word


def example_by_key(key: str) -> Example:
    """The README's example of that key; else (a `$ ` line, a command the text names) the key as
    the README writes it."""
    return next((e for e in EXAMPLES if e.key == key), None) or Example(key, shlex.split(key), 0, "")


class World:
    """The data folders the examples start from, the loopback Scryfall, and every result."""

    def __init__(self, root: Path, fake: FakeScryfall):
        self.root, self.fake = root, fake
        self.folders: dict[str, Path] = {}
        self.make_sample: list[Result] = []
        self.results: dict[tuple, list[Result]] = {}
        self._n = 0

    @property
    def sync_run_id(self) -> str:
        return RUN_ID.search(self.make_sample[0].out).group(0)

    def cli(self, args: list[str], cwd: Path, stdin: bytes | None = None) -> Result:
        """`casefile --data-dir data ARGS` typed in the folder cwd (reading ``stdin``, if given)."""
        out, err = io.StringIO(), io.StringIO()
        saved_env, saved_cwd, saved_stdin = dict(os.environ), os.getcwd(), sys.stdin
        root_logger = logging.getLogger()
        saved_log = (root_logger.handlers[:], root_logger.level)
        for name in [n for n in os.environ if n.startswith("CASEFILE_")]:
            del os.environ[name]
        os.environ.update({name: value(self) for name, value in ENVIRONMENT.items()})
        os.chdir(cwd)
        if stdin is not None:
            sys.stdin = io.TextIOWrapper(io.BytesIO(stdin), encoding="utf-8")
        try:
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                code = main(["--data-dir", "data", *args])
        finally:
            sys.stdin = saved_stdin
            os.chdir(saved_cwd)
            os.environ.clear()
            os.environ.update(saved_env)
            root_logger.handlers[:], root_logger.level = saved_log
        return Result(code, out.getvalue(), err.getvalue(), cwd)

    def folder(self, start: str) -> Path:
        """A new working folder holding `data`, a copy of the data folder `start` ("empty": none)."""
        self._n += 1
        cwd = self.root / f"example-{self._n}"
        cwd.mkdir()
        if start != "empty":
            shutil.copytree(self.folders[start], cwd / "data", symlinks=True)
        return cwd

    def run(self, key: str, start: str | None = None, times: int = 1) -> list[Result]:
        """The example run `times` times on a new copy of its data folder; once per (key, start, times)."""
        example = example_by_key(key)
        start = start or START.get(key, "sample")
        if (key, start, times) not in self.results:
            cwd = self.folder(start)
            if key in PREPARE:
                PREPARE[key](self, cwd)
            assert example.words[0] == "casefile"
            argv = [_substitute(self, word) for word in example.words[1:]]
            stdin = None
            if "<" in argv:  # `< FILE`: the file is the command's stdin
                at = argv.index("<")
                stdin, argv = (cwd / argv[at + 1]).read_bytes(), argv[:at] + argv[at + 2:]
            self.results[key, start, times] = [self.cli(argv, cwd, stdin) for _ in range(times)]
        return self.results[key, start, times]


def make_sample_commands() -> list[list[str]]:
    """The commands of the Makefile's `sample` target, as `casefile …` words."""
    recipe = re.search(r"^sample:.*\n((?:\t.*\n)+)", MAKEFILE_TEXT, re.M).group(1)
    commands = []
    for line in recipe.splitlines():
        words = shlex.split(line.strip())
        assert words[0] == "$(BIN)/casefile", line
        commands.append(["casefile", *words[1:]])
    return commands


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    """`make sample`'s commands run in a folder of their own: its data folder after the first
    command (the sync) is "synced", after all of them "sample"; "synced twice" is "synced" after
    another `sync --offline`."""
    cards, rulings, sets = sample_api_data()
    with FakeScryfall(cards, rulings, sets) as fake:
        w = World(tmp_path_factory.mktemp("readme"), fake)
        home = w.folder("empty")
        commands = make_sample_commands()
        assert commands[0][:2] == ["casefile", "sync"], commands
        for n, words in enumerate(commands):
            w.make_sample.append(w.cli([_substitute(w, word) for word in words[1:]], home))
            assert w.make_sample[-1].code == 0, w.make_sample[-1].text
            if n == 0:
                shutil.copytree(home / "data", w.root / "synced", symlinks=True)
                w.folders["synced"] = w.root / "synced"
        w.folders["sample"] = home / "data"
        twice = w.folder("synced")
        assert w.cli(["sync", "--offline"], twice).code == 0
        w.folders["synced twice"] = twice / "data"
        yield w


# --- comparing ---------------------------------------------------------------------------


def _cut(line: str) -> bool:
    return line.endswith(" …")


def _same(shown: str, real: str) -> bool:
    return shown == real or (_cut(shown) and real.startswith(shown[:-1].rstrip()))


def _chunks(shown: list[str]) -> tuple[list[tuple[bool, list[str]]], bool]:
    """The shown lines as runs that must be contiguous, each with whether lines may be left out
    before it; and whether lines may be left out at the end."""
    chunks, current, gap = [], [], False
    for line in shown:
        if line.strip() == "…":
            if current:
                chunks.append((gap, current))
            current, gap = [], True
            continue
        current.append(line)
        if _cut(line):
            chunks.append((gap, current))
            current, gap = [], True
    if current:
        chunks.append((gap, current))
        gap = False
    return chunks, gap


def matches(shown: list[str], real: list[str]) -> bool:
    chunks, open_end = _chunks(shown)

    def fit(k: int, pos: int) -> bool:
        if k == len(chunks):
            return open_end or pos == len(real)
        gap, lines = chunks[k]
        starts = range(pos, len(real) - len(lines) + 1) if gap else [pos]
        return any(p + len(lines) <= len(real) and all(_same(s, r) for s, r in zip(lines, real[p:]))
                   and fit(k + 1, p + len(lines)) for p in starts)

    return fit(0, 0)


def assert_shows(shown: list[str], real: list[str], where: str) -> None:
    if not matches(shown, real):
        diff = "\n".join(difflib.unified_diff(shown, real, "README", "real output", lineterm=""))
        pytest.fail(f"{where}: the README's output is not the real one (both normalized):\n{diff}")


def test_the_comparison_holds_abridged_lines_to_their_places():
    real = ["a", "b", "c1 c2", "d", "e"]
    assert matches(["a", "b", "c1 c2", "d", "e"], real)
    assert matches(["a", "…", "d", "e"], real) and matches(["a", "b", "c1 …", "e"], real)
    assert matches(["a", "b", "…"], real) and matches(["…", "d", "e"], real)
    assert not matches(["a", "b", "c1 c2", "d"], real)  # a line left out, unsaid
    assert not matches(["a", "c1 c2", "…"], real)  # b left out, unsaid
    assert not matches(["a", "…", "b", "a"], real) and not matches(["a", "b", "c1 c3", "…"], real)
    assert not matches(["a", "b", "c2 …", "…"], real)


# --- the tests ---------------------------------------------------------------------------


def test_the_readme_has_examples_of_every_kind_this_module_reads():
    assert {e.section for e in EXAMPLES} == set(main_group.commands)
    assert {s.how for s in SHOWN} == {"the comment under it", "its $ line", "the block after its sh block",
                                      "the block the text introduces"}
    assert not UNEXPLAINED, f"output blocks that no test compares: {UNEXPLAINED}"


def test_every_name_of_the_lists_above_is_in_the_readme():
    keys = {e.key for e in EXAMPLES}
    assert not set(SKIPPED) - keys, f"SKIPPED names lines the README does not have: {set(SKIPPED) - keys}"
    commands = keys | {s.command for s in SHOWN}
    for table in (EXIT_CODES, START, PREPARE):
        assert not set(table) - commands, f"names commands the README does not have: {set(table) - commands}"
    for placeholder in SUBSTITUTIONS:
        assert any(placeholder in e.text for e in EXAMPLES), f"no example holds {placeholder}"
    assert not set(SHOWN_AFTER.values()) - keys, "SHOWN_AFTER names lines the README does not have"
    for key in [*INTRODUCED, *CHECKED_APART]:
        assert sum(_head(b, key) for b in COMMANDS_PART if b.kind != "text") == 1, key
    assert all(callable(globals().get(name)) for name in CHECKED_APART.values())


def test_each_exit_code_expected_is_the_readmes():
    rows = {int(m.group(1)): m.group(2) for m in re.finditer(r"^\| (\d+) \| (.*)$", README_TEXT, re.M)}
    for command, (code, words) in EXIT_CODES.items():
        assert words in rows[code], f"the README's exit code {code} does not cover {command!r}"


@pytest.mark.parametrize("example", [e for e in EXAMPLES if e.key not in SKIPPED], ids=lambda e: f"L{e.line} {e.key[:60]}")
def test_the_example_exits_as_documented(world, example):
    [result] = world.run(example.key)
    expected = EXIT_CODES.get(example.key, (0, ""))[0]
    assert result.code == expected, f"line {example.line}: {example.text}\n{result.text}"


@pytest.mark.parametrize("shown", SHOWN, ids=lambda s: s.id)
def test_the_output_shown_is_the_real_output(world, shown):
    results = world.run(shown.command, shown.start, shown.times)
    expected = EXIT_CODES.get(shown.command, (0, ""))[0]
    assert [r.code for r in results] == [expected] * shown.times, [r.text for r in results]
    sizes = shown.sizes_differ
    assert_shows(normalize_shown(shown.lines, sizes), normalize_real(results, world, sizes),
                 f"line {shown.line} ({shown.how}): {shown.command}")


def test_make_sample_prints_what_set_up_shows(world):
    """`casefile status` prints "text, as shown under Set-up": the block `make sample` prints."""
    [block] = [b for b in BLOCKS if b.part.startswith("Set-up") and b.kind == "fence" and not b.lang]
    assert "`make sample` runs" in README_TEXT
    assert_shows(normalize_shown(block.lines, sizes=True), normalize_real(world.make_sample, world, sizes=True),
                 f"line {block.line} (make sample)")


def _block(key: str) -> Block:
    [block] = [b for b in COMMANDS_PART if b.kind != "text" and _head(b, key)]
    return block


def _shown_json(text: str):
    """The README's abridged JSON as an object: `"…"` is any value, `, …` any further members."""
    return json.loads(re.sub(r",\s*…\s*(?=[}\]])", "", text))


def _holds(shown, real, path: str = "") -> None:
    """Every member the README shows is in the real object, with its value, in its order."""
    if shown == "…":
        return
    if isinstance(shown, dict):
        assert isinstance(real, dict), path
        missing = [k for k in shown if k not in real]
        assert not missing, f"{path}: the real object has no {missing}"
        order = [k for k in real if k in shown]
        assert order == list(shown), f"{path}: the members come in another order: {order}"
        for k in shown:
            _holds(shown[k], real[k], f"{path}.{k}")
    else:
        assert shown == real, f"{path}: the README shows {shown!r}, the real value is {real!r}"


def test_the_json_summary_shown_is_that_of_a_first_sync(world):
    """"With `--log-format json` the summary is one object": the README's example of one command."""
    [text] = re.findall(r"^`(\{\"ts\": \"…\", \"level\": \"info\", \"event\": \"summary\".*\})`", README_TEXT, re.M)
    shown = _shown_json(text)
    [result] = world.run("casefile --log-format json sync --offline", start="empty")
    assert result.code == 0, result.text
    [real] = [json.loads(line) for line in result.out.splitlines() if '"event": "summary"' in line]
    assert isinstance(real["duration_s"], float)
    shown["duration_s"] = real["duration_s"]  # time: the README's is one run's
    _holds(shown, real, "summary")


def test_the_jsonl_rows_shown_are_rows_of_an_export(world):
    """"A row of rulings.jsonl and the first links of card_rulings.jsonl from the offline sample"."""
    block = _block(CHECKED_APART_KEYS["test_the_jsonl_rows_shown_are_rows_of_an_export"])
    cwd = world.folder("sample")
    result = world.cli(["export", "rulings", "--format", "jsonl", "--out", "exports/rulings"], cwd)
    assert result.code == 0, result.text
    rulings = (cwd / "exports" / "rulings" / "rulings.jsonl").read_text("utf-8").splitlines()
    links = (cwd / "exports" / "rulings" / "card_rulings.jsonl").read_text("utf-8").splitlines()
    shown_rulings = [line for line in block.lines if '"sightings"' in line]
    shown_links = block.lines[len(shown_rulings):]
    assert shown_rulings and block.lines[:len(shown_rulings)] == shown_rulings
    assert all(line in rulings for line in shown_rulings), "a row of rulings.jsonl the export does not write"
    assert shown_links == links[:len(shown_links)], "not the first rows of card_rulings.jsonl"


def test_the_manifest_shown_is_that_of_an_export_of_the_api_sample(world, sample_data_dir):
    """manifest.json "of a parquet export of the API-only sample". The run's id and times differ
    from one sync to the next, so does the sha256 of the datasheet that names them; a parquet
    file's bytes and sha256 depend on the DuckDB version that wrote it (README: "parquet files
    name the DuckDB version that wrote them")."""
    shown = json.loads("\n".join(_block(CHECKED_APART_KEYS[
        "test_the_manifest_shown_is_that_of_an_export_of_the_api_sample"]).lines))
    cwd = world.folder("empty")
    shutil.copytree(sample_data_dir, cwd / "data")
    result = world.cli(["export", "rulings", "--format", "parquet", "--out", "exports/rulings"], cwd)
    assert result.code == 0, result.text
    real = json.loads((cwd / "exports" / "rulings" / "manifest.json").read_text("utf-8"))
    for manifest in (shown, real):
        for run in (manifest["sync_run"], *manifest["views"]):
            for name in ("run_id", "started_at", "finished_at"):
                run[name] = "<varies>"
        for entry in manifest["files"]:
            entry["sha256"] = "<varies>"
            if entry["name"].endswith(".parquet"):
                entry["bytes"] = "<DuckDB's>"
    assert shown == real


def _markdown_rows(lines: list[str]) -> tuple[list[str], list[list[str]]]:
    rows = [[cell.strip() for cell in re.split(r"(?<!\\)\|", line.strip())[1:-1]] for line in lines]
    return rows[0], [row for row in rows[1:] if not all(set(cell) <= {"-"} for cell in row)]


def _cell_shows(shown: str, real: str) -> bool:
    """A cell equal to the real one, or with "…" where the README leaves text out."""
    pattern = ".*".join(re.escape(piece.strip()) for piece in shown.split("…"))
    return re.fullmatch(pattern, real, re.S) is not None


def test_the_changes_shown_are_those_of_the_constructed_pair_of_runs(world, tmp_path):
    """"On the constructed pair of runs of the change-history test … in markdown, abridged": the
    table's columns and rows are those `casefile changes --format markdown` prints after the two
    runs, its cells whole or cut where they say "…"."""
    block = _block(CHECKED_APART_KEYS["test_the_changes_shown_are_those_of_the_constructed_pair_of_runs"])
    run1, run2, _ = change_history_runs(tmp_path)
    cwd = world.folder("empty")
    for run in (run1, run2):
        assert world.cli(["-q", "sync", "--offline", str(run)], cwd).code == 0
    result = world.cli(["changes", "--format", "markdown"], cwd)
    assert result.code == 0, result.text
    shown_head, shown_rows = _markdown_rows(block.lines)
    real_head, real_rows = _markdown_rows(result.out.splitlines())
    assert not set(shown_head) - set(real_head), f"columns casefile does not print: {set(shown_head) - set(real_head)}"
    assert len(shown_rows) == len(real_rows), "the README's rows are not the events"
    for n, (shown, real) in enumerate(zip(shown_rows, real_rows)):
        real = dict(zip(real_head, real))
        wrong = [(column, cell, real[column]) for column, cell in zip(shown_head, shown)
                 if not _cell_shows(cell, real[column])]
        assert not wrong, f"row {n + 1}: (column, README, real): {wrong}"


CHECKED_APART_KEYS = {test: key for key, test in CHECKED_APART.items()}


def test_the_query_file_shown_is_the_one_its_examples_read(world):
    """"With `card-rulings.sql` holding" the ```sql block: every example naming the file runs on
    that block (PREPARE writes it), and reading it with --file or from stdin prints the same rows."""
    assert _block(QUERY_FILE_HEAD).lang == "sql"
    assert f"With `{QUERY_FILE}` holding" in README_TEXT
    examples = [e for e in EXAMPLES if QUERY_FILE in e.words]
    assert len(examples) == 2 and all(PREPARE.get(e.key) is _query_file for e in examples)
    [by_file], [by_stdin] = [world.run(e.key) for e in examples]
    assert by_file.code == by_stdin.code == 0 and by_file.err == by_stdin.err == ""
    assert by_file.out == by_stdin.out and by_file.out.endswith("(2 rows)\n")


# --- the Python API --------------------------------------------------------------------------


def test_the_python_api_example_runs_and_shows_what_it_prints(world, monkeypatch):
    """The ```python block of "Python API", run line by line as a notebook would (its data folder
    the sample's, through CASEFILE_DATA_DIR; "/srv/casefile/data" stands for that folder too): the
    block after it is what its first bare expression shows, and the other folder gives the same
    rows."""
    blocks = [b for b in read_blocks(README_TEXT) if b.part == "Python API" and b.kind == "fence"]
    assert [b.lang for b in blocks[:2]] == ["python", ""], blocks[:2]
    code, shown = blocks[0].lines, blocks[1].lines
    folder = str(world.folders["sample"])
    monkeypatch.setenv("CASEFILE_DATA_DIR", folder)
    namespace: dict = {}
    values = []
    for line in code:
        source = line.replace('"/srv/casefile/data"', repr(folder))
        try:
            expression = compile(source, "README.md", "eval")
        except SyntaxError:  # a statement
            exec(compile(source, "README.md", "exec"), namespace)
        else:
            values.append(eval(expression, namespace))
    assert len(values) == 2, code
    assert [l.rstrip() for l in repr(values[0]).splitlines()] == [l.rstrip() for l in shown]
    assert values[1].equals(namespace["rulings"])
