"""Random sequences of lifecycle commands on one data folder, and what must hold after each.

The commands: a sync of the bundled sample (query A, ``type:"Case"``), a sync of the sample
recorded as ``t:case`` (query B, support.runs.recorded_as), a sync of the sample with one card's
rulings edited (query A; CONSTRUCTED: " (Reworded.)" appended to the first ruling of Case of the
Shifting Visage, and marker French copies, "[FR 0]" …, on its listeblanche.fr page, so that
translations and their search keys come and go; and Case of the Burning Masks' listeblanche.fr page
recorded as not fetched, its copy carried, which the replay carries from the recording),
`casefile rules ingest` of the tests' rules excerpt, `casefile prune
--keep-days 0`, a run folder of data/raw/ deleted by hand, `casefile rebuild` and `casefile
doctor`; all through the CLI, in this process (pipeline.cli.main). Run ids are the UTC time a run
started, so every run is older than a prune's clock: --keep-days 0 deletes every run the
warehouse is not built from.

After each command:

1. a sync or an ingest that exits 0 leaves the warehouse that `casefile rebuild` makes from a
   copy of the same data/raw/: the data tables, the query tables and the rules tables always;
   the bookkeeping tables (sync_run, raw_document, change events, retired rulings) only while
   data/raw/ holds every run the warehouse was loaded from. A prune that deleted runs, or a run
   folder deleted by hand, takes the runs their history came from: the warehouse keeps their
   rows, a rebuild cannot make them (README, prune: "a change history that starts at the oldest
   kept run"); a rebuild of the folder makes the two agree again. Even then, each document a
   rebuild records names the same file in both: the oldest copy data/raw/ holds (a sync, or an
   ingest of the same rules file again, after the first run that fetched it was lost);
2. a sync or an ingest that exits 78 leaves the warehouse unchanged, table by table; one that
   exits 0 keeps every card of every query the warehouse held, with rulings if it had some, and
   every rules edition (the replays never drop a card: a card gone is content removed for a
   lost run), and afterwards no run the warehouse was loaded from is missing. Not the count of a
   card's rulings, as first written: the edited replay's reworded ruling stands beside the
   wiki's copy of the old wording (one ruling more), and the next sync of the sample retires it;
3. a prune exits 0, and never makes the next load refuse: when no run was lost before it, none
   is after it, so the next sync exits 0 and (1) holds;
4. `casefile doctor` exits 78 exactly when the next load would refuse: checked before every
   sync and ingest (doctor passing: the load must not refuse; doctor failing: the load refuses
   unless its own run replaces every view lost, a sync of the lost run's query and sources, which
   (2) then checks, or an ingest of the very file of the rules edition lost, which brings it
   back), and at each doctor step against an ingest of another edition of the rules in a copy of
   the folder (a load that replaces no query's view and brings no edition back);
5. a rebuild exits 0 (or 78 when data/raw/ holds no complete run while the warehouse holds
   runs: refused rather than emptied, as the README says) and leaves no lost run: doctor passes
   and the next sync or ingest exits 0.

Seeded: the suite draws the same few sequences on every machine and prints the seed.
``CASEFILE_LIFECYCLE_SEED=<n>`` replays another seed, ``CASEFILE_LIFECYCLE_EXAMPLES=<n>`` draws
n sequences (some 5-10 s each on two cores), ``CASEFILE_LIFECYCLE_STEPS`` up to that many
commands after the first (6), ``CASEFILE_LIFECYCLE_SHRINK=0`` reports a failing sequence as
drawn, without the minutes Hypothesis spends shrinking it. Two fixed sequences run first: a run
of each query and of the rules lost, and syncs after prunes.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import duckdb
import pytest
from hypothesis import HealthCheck, Phase, example, given, note, seed, settings, strategies as st

from pipeline.cli import main
from pipeline.lost import lost_runs, read_loaded
from pipeline.rawstore import RawStore

from conftest import FIXTURES
from support.runs import EditableRun, recorded_as
from support.warehouse_state import ALL_TABLES, DATA_TABLES, fingerprints, query, warehouse_of

pytestmark = pytest.mark.reliability

SEED = int(os.environ.get("CASEFILE_LIFECYCLE_SEED") or 20261205)
EXAMPLES = int(os.environ.get("CASEFILE_LIFECYCLE_EXAMPLES") or 5)
STEPS = int(os.environ.get("CASEFILE_LIFECYCLE_STEPS") or 6)
CR = FIXTURES / "rules" / "cr_case_excerpt.txt"
EDITED_CARD = "Case of the Shifting Visage"

CONTENT_TABLES = DATA_TABLES + ("query_card", "query_wiki_page", "cr_edition", "cr_rule", "cr_glossary",
                                "ruling_rule", "card_rule")
EVERY_TABLE = CONTENT_TABLES + tuple(t for t in ALL_TABLES if t not in DATA_TABLES)

LOADS = ("sync_a", "sync_b", "sync_edited", "ingest")
OPERATIONS = LOADS + ("prune", "lose", "rebuild", "doctor")
# the first command is a load (a data folder to work on); then any command, with a number that
# picks the run folder a "lose" deletes
SEQUENCES = st.tuples(st.sampled_from(LOADS), st.lists(st.tuples(st.sampled_from(OPERATIONS), st.integers(0, 9)),
                                                      min_size=3, max_size=STEPS))


@pytest.fixture(scope="module")
def replays(tmp_path_factory) -> dict[str, list[str]]:
    folder = tmp_path_factory.mktemp("replays")
    t_case = recorded_as(folder / "t-case", "t:case")
    edited = EditableRun(folder / "edited")

    def reword(rulings):
        rulings[0]["comment"] += " (Reworded.)"

    edited.edit_rulings(EDITED_CARD, reword)
    edited.add_french("shifting-visage", lambda i: f"[FR {i}] Enquête résolue")
    edited.carry("listeblanche.fr/carte/mkm/case-of-the-burning-masks")
    other_edition = folder / "cr_other_edition.txt"  # CONSTRUCTED: the excerpt dated November 8, 2024
    other_edition.write_text(CR.read_text("utf-8").replace("These rules are effective as of September 20, 2024.",
                                                           "These rules are effective as of November 8, 2024."),
                             "utf-8")
    return {"sync_a": ["sync", "--offline"], "sync_b": ["sync", "--offline", str(t_case)],
            "sync_edited": ["sync", "--offline", str(edited.path)], "ingest": ["rules", "ingest", str(CR)],
            "probe": ["rules", "ingest", str(other_edition)]}


def cli(data: Path, *args: str) -> int:
    return main(["--data-dir", str(data), "-q", *args])


def run_ids(data: Path) -> list[str]:
    return [r.run_id for r in RawStore(data / "raw").runs()] if (data / "raw").is_dir() else []


def lost(data: Path) -> list:
    if not warehouse_of(data).exists():
        return []
    con = duckdb.connect(str(warehouse_of(data)), read_only=True)
    try:
        return lost_runs(read_loaded(con), RawStore(data / "raw").runs())
    finally:
        con.close()


def held(data: Path) -> tuple[set, set]:
    """(query, card, whether it has rulings) and the rules editions the warehouse holds. (Not the
    count of its rulings: the edited replay's reworded ruling stands beside the wiki's copy of the
    old wording, one ruling more, which the next sync of the sample takes away.)"""
    if not warehouse_of(data).exists():
        return set(), set()
    return (set(query(data, "SELECT q.query, q.oracle_id, count(r.ruling_id) > 0 FROM query_card q "
                            "LEFT JOIN card_ruling r USING (oracle_id) GROUP BY ALL")),
            set(query(data, "SELECT effective_date FROM cr_edition")))


def state(data: Path, tables=EVERY_TABLE):
    return fingerprints(data, tables=tables) if warehouse_of(data).exists() else None


def documents(data: Path) -> dict[str, str]:
    """The file each raw_document row names, by doc_id."""
    return dict(query(data, "SELECT doc_id, path FROM raw_document"))


def rebuilt_copy(data: Path, scratch: Path, tables) -> tuple[dict, dict[str, str]]:
    """What `casefile rebuild` makes of a copy of data/raw/ alone: the tables' fingerprints, and
    the file each raw_document row names."""
    copy = scratch / "rebuilt"
    shutil.rmtree(copy, ignore_errors=True)
    shutil.copytree(data / "raw", copy / "raw")
    assert cli(copy, "rebuild") == 0
    found = fingerprints(copy, tables=tables), documents(copy)
    shutil.rmtree(copy)
    return found


def doctor(data: Path) -> int:
    return main(["--data-dir", str(data), "doctor"])


def load_refuses_in_copy(data: Path, scratch: Path, probe: list[str]) -> bool:
    """Whether a load that replaces no query's view and brings no rules edition back (an ingest of
    an edition no step ingests) refuses, in a copy of the folder."""
    copy = scratch / "probe"
    shutil.rmtree(copy, ignore_errors=True)
    shutil.copytree(data, copy)
    code = cli(copy, *probe)
    shutil.rmtree(copy)
    assert code in (0, 78), code
    return code == 78


def play(data: Path, scratch: Path, replays: dict, steps: list[tuple[str, int]]) -> None:
    history_whole = True  # data/raw/ holds every run the warehouse's bookkeeping rows came from
    must_load = False  # a rebuild, or a prune that found nothing lost, came last: the next load goes through
    for n, (op, pick) in enumerate(steps, 1):
        where = f"step {n} {op} of {steps} (seed {SEED})"
        if op in LOADS:
            checked = doctor(data)
            assert checked in (0, 78) and (checked == 78) == bool(lost(data)), where
            before, (cards, editions) = state(data), held(data)
            code = cli(data, *replays[op])
            assert code in (0, 78), where
            if code == 78:
                assert checked == 78, f"doctor passed, the load refused: {where}"
                assert state(data) == before, f"a refused load changed the warehouse: {where}"
                assert not must_load, f"refused after a rebuild or a prune: {where}"
                continue
            if op == "sync_edited":  # the page its recording did not fetch is read from the copy it carried
                assert query(data, "SELECT count(*) FROM ruling_sighting JOIN card USING (oracle_id) WHERE "
                                   "origin = 'listeblanche' AND name = 'Case of the Burning Masks'") != [(0,)], where
            now_cards, now_editions = held(data)
            assert cards <= now_cards and editions <= now_editions, f"a load removed content: {where}"
            assert lost(data) == [], where
            tables = EVERY_TABLE if history_whole else CONTENT_TABLES
            rebuilt, named = rebuilt_copy(data, scratch, tables)
            assert state(data, tables) == rebuilt, f"sync differs from rebuild: {where}"
            held_files = documents(data)
            assert {doc: held_files.get(doc) for doc in named} == named, \
                f"a document names another copy than a rebuild does: {where}"
            must_load = False
        elif op == "prune":
            lost_before = lost(data)
            runs_before = set(run_ids(data))
            assert cli(data, "prune", "--keep-days", "0") == 0, where
            if set(run_ids(data)) != runs_before:
                history_whole = False
            if not lost_before:
                assert lost(data) == [], f"a prune deleted a run the warehouse needs: {where}"
                must_load = warehouse_of(data).exists()
        elif op == "lose":
            runs = run_ids(data)
            if runs:
                shutil.rmtree(data / "raw" / runs[pick % len(runs)])
                history_whole = False
                must_load = False
        elif op == "rebuild":
            complete = RawStore(data / "raw").complete_runs() if (data / "raw").is_dir() else []
            code = cli(data, "rebuild")
            if not complete:
                assert code == 78, where
                continue
            assert code == 0, where
            assert lost(data) == [] and doctor(data) == 0, where
            history_whole, must_load = True, True
        elif op == "doctor":
            code = doctor(data)
            assert code in (0, 78), where
            if warehouse_of(data).exists():
                assert (code == 78) == load_refuses_in_copy(data, scratch, replays["probe"]), \
                    f"doctor exits {code}, a load in a copy disagrees: {where}"


@pytest.mark.timeout(60 + 30 * EXAMPLES)
@seed(SEED)
@settings(max_examples=EXAMPLES, deadline=None, database=None, derandomize=False, print_blob=True,
          phases=tuple(Phase) if os.environ.get("CASEFILE_LIFECYCLE_SHRINK", "1") != "0" else
          (Phase.explicit, Phase.generate),
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(sequence=SEQUENCES)
@example(sequence=("sync_a", [("sync_b", 0), ("ingest", 0), ("lose", 0), ("doctor", 0), ("sync_b", 0),
                              ("sync_a", 0), ("lose", 2), ("doctor", 0), ("ingest", 0), ("rebuild", 0),
                              ("sync_edited", 0)]))
@example(sequence=("sync_edited", [("sync_b", 0), ("prune", 0), ("sync_a", 0), ("prune", 0), ("lose", 1),
                                   ("sync_b", 0), ("prune", 0), ("doctor", 0), ("rebuild", 0), ("sync_a", 0)]))
def test_random_lifecycle_sequences_keep_the_warehouse_equal_to_a_rebuild(sequence, replays, tmp_path_factory):
    print(f"lifecycle sequences: seed {SEED} (CASEFILE_LIFECYCLE_SEED replays it)")
    first, rest = sequence
    steps = [(first, 0), *rest]
    note(f"seed {SEED}: {steps}")
    scratch = tmp_path_factory.mktemp("lifecycle")
    play(scratch / "data", scratch, replays, steps)
