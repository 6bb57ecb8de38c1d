"""Crash safety: kill -9 a sync or a rebuild at its failpoints and at seeded random times, then look.

Each kill must leave the state before the run or after it (per-table fingerprints), a raw store
with no partial file, and a raw store that `rebuild` replays to the same data.
"""

from __future__ import annotations

import os
import random
import secrets
import shutil
import signal
import subprocess
import sys
import time
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

import pytest

from pipeline.cli import main
from pipeline.config import Settings, validate
from pipeline.rawstore import read_run
from pipeline.sync import rebuild

from conftest import subprocess_env
from support import tally
from support.runs import SAMPLE, EditableRun, printed_text
from support.warehouse_state import (
    DATA_TABLES, bodies_of, failing_checks, fingerprints, loaded_runs, raw_run_problems, run_dirs, run_status,
    warehouse_of,
)

pytestmark = pytest.mark.reliability

SEED = int(os.environ.get("CASEFILE_KILL_SEED") or secrets.randbelow(2**31))
NEW_RUN = "<the killed run>"
DROPPED = "Case of the Market Melee"
ERRATA = "Case of the Uneaten Feast"
REWORDED = "Case of the Shifting Visage"
WORKERS = 3  # casefile processes at once: two cores, and each spends part of its time in fsync


@dataclass(frozen=True)
class Kill:
    scene: str  # edited | sample | rebuild
    failpoint: str | None = None  # CASEFILE_FAILPOINT, e.g. "during_extract:kill@9"
    at: float | None = None  # random kills: when, as a share of the scene's working time

    @property
    def name(self) -> str:
        return f"{self.scene}-{self.failpoint or f'random-{self.at:.2f}'}"


FAILPOINT_KILLS = [
    Kill("edited", "during_extract:kill@1"), Kill("edited", "during_extract:kill@9"),
    Kill("edited", "during_extract:kill@16"), Kill("edited", "during_extract:kill@20"),
    Kill("edited", "during_load:kill"), Kill("edited", "before_commit:kill"), Kill("edited", "after_commit:kill"),
    Kill("sample", "during_extract:kill@18"), Kill("sample", "during_extract:kill@40"),
    Kill("sample", "during_load:kill"), Kill("sample", "before_commit:kill"), Kill("sample", "after_commit:kill"),
    Kill("rebuild", "after_commit:kill@1"), Kill("rebuild", "before_commit:kill@2"),
    Kill("rebuild", "before_replace:kill"),
]
_rng = random.Random(SEED)
# A time past the end of the work finds the process gone: that kill is not counted. The working
# time is measured once in this process; a killed process may be quicker, so draws stop at 0.9 of it.
RANDOM_KILLS = [Kill(scene, at=round(_rng.uniform(0.0, 0.9), 3))
                for scene, times in (("edited", 7), ("sample", 2), ("rebuild", 2)) for _ in range(times)]
PLAN = FAILPOINT_KILLS + RANDOM_KILLS


@dataclass
class Scene:
    """A data folder to copy, the command to kill in it, and its two acceptable states."""

    base: Path
    args: list[str]
    before: dict
    after: dict
    after_data: dict  # what rebuild must give once the run is complete
    known_bodies: set[str]
    working_s: float  # how long the work takes once it has started (measured in-process)
    started: callable = None  # data dir -> has the work begun (a run folder, or the rebuild file)

    @property
    def base_runs(self) -> set[str]:
        return {p.name for p in run_dirs(self.base)}


@dataclass
class Outcome:
    kill: Kill
    data_dir: Path
    returncode: int
    stderr: str

    @property
    def killed(self) -> bool:
        return self.returncode == -signal.SIGKILL


@dataclass
class Lab:
    scenes: dict[str, Scene] = field(default_factory=dict)
    outcomes: dict[str, Outcome] = field(default_factory=dict)
    wal_left: bool = False  # the rebuild scene's base holds its last commit in the WAL only
    # (scene, state of the killed run) whose rebuild was checked: a rebuild reads complete runs
    # only, so kills that left the same kind of run give the same raw store to rebuild from
    rebuilt: set = field(default_factory=set)


def _sync(data_dir: Path, *args: str) -> float:
    started = time.monotonic()
    assert main(["--data-dir", str(data_dir), "-q", "sync", "--offline", *args]) == 0
    return time.monotonic() - started


def _new_run_renames(data_dir: Path, base_runs: set[str]) -> dict[str, str]:
    return {p.name: NEW_RUN for p in run_dirs(data_dir) if p.name not in base_runs}


def _edited_runs(root: Path) -> tuple[Path, Path]:
    """run1: the sample's API answers without one card; run2: all of them, one ruling re-worded (a
    constructed edit: "won’t" made "doesn’t") and one Oracle text set to the card's printed wording
    from the reference, as in test_operations."""
    run1 = EditableRun(root / "run1", sources=["api"])
    run1.drop_card(DROPPED)
    run2 = EditableRun(root / "run2", sources=["api"])

    def reword(rulings):
        target = next(r for r in rulings if r["comment"].startswith("The copy is created on the stack"))
        target["comment"] = target["comment"].replace("won’t cause", "doesn’t cause")

    run2.edit_rulings(REWORDED, reword)
    run2.set_oracle_text(ERRATA, printed_text(ERRATA))
    return run1.path, run2.path


def _sync_scene(root: Path, name: str, base: Path, offline: list[str], known: set[str]) -> Scene:
    """`casefile sync --offline [RUN_DIR]` on a copy of ``base``; its after state made in this process."""
    after = root / f"after-{name}"
    shutil.copytree(base, after)
    working_s = _sync(after, *offline)
    renames = _new_run_renames(after, {p.name for p in run_dirs(base)})
    return Scene(base=base, args=["sync", "--offline", *offline], before=fingerprints(base),
                 after=fingerprints(after, renames),
                 after_data=fingerprints(after, renames, DATA_TABLES), known_bodies=known, working_s=working_s,
                 started=lambda d, n=len(run_dirs(base)): len(run_dirs(d)) > n)


def _rebuild_scene(root: Path, wal_base: Path) -> Scene:
    """The edited scene's after state as a kill -9 just after the commit leaves it: in the WAL only."""
    probe = root / "rebuild-probe"
    shutil.copytree(wal_base, probe)
    started = time.monotonic()
    rebuild(validate(Settings(data_dir=probe)))
    working_s = time.monotonic() - started
    state = fingerprints(wal_base)
    return Scene(base=wal_base, args=["rebuild"], before=state, after=state,
                 after_data=fingerprints(wal_base, tables=DATA_TABLES), known_bodies=set(), working_s=working_s,
                 started=lambda d: (warehouse_of(d).parent / "casefile.duckdb.rebuild").exists())


def _run_kill(scene: Scene, kill: Kill, dest: Path) -> Outcome:
    shutil.copytree(scene.base, dest)
    env = subprocess_env(dest, **({"CASEFILE_FAILPOINT": kill.failpoint} if kill.failpoint else {}))
    proc = subprocess.Popen([sys.executable, "-m", "pipeline", "-q", *scene.args], env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if kill.at is not None:
        deadline = time.monotonic() + 60
        while proc.poll() is None and not scene.started(dest) and time.monotonic() < deadline:
            time.sleep(0.005)
        time.sleep(kill.at * scene.working_s)
        if proc.poll() is None:
            proc.send_signal(signal.SIGKILL)
    _, stderr = proc.communicate(timeout=120)
    outcome = Outcome(kill, dest, proc.returncode, stderr)
    if outcome.killed:
        tally.kills[kill.failpoint.split(":")[0] if kill.failpoint else "random time"] += 1
    return outcome


@pytest.fixture(scope="module")
def lab(tmp_path_factory) -> Lab:
    """Every kill of the plan, run WORKERS at a time; the tests then look at what each one left."""
    tally.seeds["kills"] = SEED
    root = tmp_path_factory.mktemp("crash")
    run1, run2 = _edited_runs(root)
    base = root / "base"
    _sync(base, str(run1))
    known = bodies_of(run1) | bodies_of(run2) | bodies_of(SAMPLE)
    lab = Lab()
    lab.scenes["edited"] = _sync_scene(root, "edited", base, [str(run2)], known)
    lab.scenes["sample"] = _sync_scene(root, "sample", base, [], known)
    with ThreadPoolExecutor(WORKERS) as pool:
        wal_kill = Kill("edited", "after_commit:kill")
        wal_base: Future = pool.submit(_run_kill, lab.scenes["edited"], wal_kill, root / "wal-base")
        syncs = {k.name: pool.submit(_run_kill, lab.scenes[k.scene], k, root / f"k{i:02d}")
                 for i, k in enumerate(PLAN) if k.scene != "rebuild"}
        made = wal_base.result()
        assert made.killed, made.stderr
        lab.wal_left = (warehouse_of(made.data_dir).parent / "casefile.duckdb.wal").exists()
        lab.scenes["rebuild"] = _rebuild_scene(root, made.data_dir)
        rebuilds = {k.name: pool.submit(_run_kill, lab.scenes["rebuild"], k, root / f"k{i:02d}")
                    for i, k in enumerate(PLAN) if k.scene == "rebuild"}
        lab.outcomes = {name: future.result() for name, future in {**syncs, **rebuilds}.items()}
    return lab


def _differing(state: dict, other: dict) -> list[str]:
    return [t for t in state if state[t] != other.get(t)]


def _iso(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00")).replace(tzinfo=None)


def _check_run_row(data_dir: Path, run_path: Path) -> None:
    """The run's sync_run row carries the start and end its raw folder recorded."""
    run = read_run(run_path)
    [(run_id, started_at, finished_at)] = [r for r in loaded_runs(data_dir) if r[0] == run.run_id]
    assert (started_at, finished_at) == (_iso(run.meta["started_at"]), _iso(run.success["finished_at"]))


@pytest.mark.parametrize("kill", PLAN, ids=lambda k: k.name)
def test_a_kill_leaves_the_state_before_or_after(lab, kill):
    """The warehouse opens and passes sql/checks; it equals the state before the run or after it;
    it holds the run only if the raw store has the run complete; no raw file under its final name
    is partial; `rebuild` skips a run that never finished and replays one that did.

    "After" for the bookkeeping tables, precisely (run ids are renamed to a placeholder):
    sync_run gains one row, the run's, equal to the reference run's but for its started_at and
    finished_at (its own, checked against its run.json and _SUCCESS) and the load's wall clock
    (loaded_at, duration_s, left out); raw_document gains the run's documents not already there
    (same URL and bytes = same doc_id, kept with the run that first fetched them); change_event and
    retired_ruling gain the run's events and retired rulings. A rebuild has one state: it
    reproduces the warehouse it replaces. The seed replays the kill times (CASEFILE_KILL_SEED).
    """
    outcome, scene = lab.outcomes[kill.name], lab.scenes[kill.scene]
    seed = f"(seed {SEED}; data folder {outcome.data_dir})"
    finished_first = kill.at is not None and outcome.returncode == 0  # a random time after the end
    assert outcome.killed or finished_first, f"exit {outcome.returncode}: {outcome.stderr} {seed}"
    assert "Traceback" not in outcome.stderr, seed

    new_runs = [p for p in run_dirs(outcome.data_dir) if p.name not in scene.base_runs]
    assert len(new_runs) <= 1, seed
    for run_path in new_runs:
        assert raw_run_problems(run_path, scene.known_bodies) == [], seed
    status = run_status(new_runs[0]) if new_runs else None
    complete = status == "complete"

    assert failing_checks(outcome.data_dir) == [], seed
    state = fingerprints(outcome.data_dir, _new_run_renames(outcome.data_dir, scene.base_runs))
    if state != scene.before:
        assert state == scene.after, f"neither before nor after: {_differing(state, scene.after)} differ {seed}"
        assert complete, f"the warehouse holds a run the raw store does not have complete {seed}"
        _check_run_row(outcome.data_dir, new_runs[0])
    if kill.scene == "rebuild":
        assert {p.name: run_status(p) for p in run_dirs(outcome.data_dir)} == \
               {p.name: run_status(p) for p in run_dirs(scene.base)}, f"a rebuild changed the raw store {seed}"

    case = (kill.scene, status)
    if case in lab.rebuilt:
        return
    lab.rebuilt.add(case)
    rebuild(validate(Settings(data_dir=outcome.data_dir)))
    expected = scene.after_data if complete or kill.scene == "rebuild" else scene.before
    assert fingerprints(outcome.data_dir, _new_run_renames(outcome.data_dir, scene.base_runs), DATA_TABLES) == \
           {t: expected[t] for t in DATA_TABLES}, f"rebuild after the kill {seed}"


def test_enough_kills_hit_a_running_casefile(lab):
    killed = [o for o in lab.outcomes.values() if o.killed]
    assert len(killed) >= 20, f"only {len(killed)} kills hit a running process (seed {SEED})"
    assert all(lab.outcomes[k.name].killed for k in FAILPOINT_KILLS)


def test_the_rebuild_kills_started_from_a_commit_held_in_the_wal_only(lab):
    """A writer killed just after its commit leaves the commit in the WAL; the rebuild kills above
    prove that no rebuild, wherever it dies, loses it (rebuild checkpoints before its rename)."""
    assert lab.wal_left
    assert lab.scenes["rebuild"].before["card"] == lab.scenes["edited"].after["card"]
