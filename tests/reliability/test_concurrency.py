"""One writer, many readers: readers racing a sync see the last committed state or exit 75.

A sync is held at its failpoints while `casefile sql`, `card` and `status` run beside it; and the
other way round, a sync waits for a reader holding the warehouse, then exits 75 keeping its run.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

import duckdb
import pytest

from pipeline.cli import main
from pipeline.rawstore import read_run

from conftest import subprocess_env
from support import tally
from support.runs import EditableRun, printed_text
from support.warehouse_state import fingerprints, run_dirs, warehouse_of

pytestmark = pytest.mark.reliability

ERRATA = "Case of the Uneaten Feast"
READERS = {
    "sql": ["sql", "SELECT name, oracle_text FROM card ORDER BY name", "--format", "csv"],
    "card": ["card", "Uneaten Feast"],
    "status": ["status", "--format", "json"],
}
SHORT_WAIT = {"CASEFILE_READER_WAIT": "0.5"}


def read_in_process(data_dir: Path, args: list[str]) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["--data-dir", str(data_dir), *args]) == 0
    return out.getvalue()


def comparable(name: str, text: str):
    """What must match between a reader and a reference: status paths differ, its row counts not."""
    return json.dumps(json.loads(text)["warehouse"]["tables"], sort_keys=True) if name == "status" else text


def start(data_dir: Path, args: list[str], **env) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "pipeline", *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env=subprocess_env(data_dir, **env))


@pytest.fixture(scope="module")
def states(tmp_path_factory):
    """A warehouse holding the sample's API answers, and a run that sets one card's Oracle text to
    its printed wording (from the reference)."""
    root = tmp_path_factory.mktemp("concurrency")
    run = EditableRun(root / "run", sources=["api"])
    run.set_oracle_text(ERRATA, printed_text(ERRATA))
    base, after = root / "base", root / "after"
    assert main(["--data-dir", str(base), "-q", "sync", "--offline", "--sources", "api"]) == 0
    shutil.copytree(base, after)
    assert main(["--data-dir", str(after), "-q", "sync", "--offline", str(run.path)]) == 0
    expected = {name: {comparable(name, read_in_process(folder, args)): state
                       for state, folder in (("before", base), ("after", after))}
                for name, args in READERS.items()}  # reader -> its output -> the state it shows
    assert all(len(outputs) == 2 for outputs in expected.values())  # each reader tells the states apart
    return {"root": root, "run": run.path, "base": base, "after": after, "expected": expected}


def wait_for(condition, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.01)


def test_readers_during_a_sync_read_before_or_after_or_exit_75(states):
    data = states["root"] / "race"
    shutil.copytree(states["base"], data)
    runs_before = len(run_dirs(data))
    sync = start(data, ["sync", "--offline", str(states["run"])],
                 CASEFILE_FAILPOINT="during_extract:sleep=0.05,before_commit:sleep=3")
    readers = []
    wait_for(lambda: len(run_dirs(data)) > runs_before)  # extracting: the warehouse is not open yet
    readers += [(name, start(data, READERS[name], **SHORT_WAIT)) for name in ("sql", "card")]
    wait_for(lambda: (run_dirs(data)[-1] / "_SUCCESS").exists())  # loading, then paused before the commit
    readers += [(name, start(data, args, **SHORT_WAIT)) for name, args in READERS.items()]
    patient = start(data, READERS["sql"], CASEFILE_READER_WAIT="20")
    assert sync.wait(timeout=60) == 0, sync.stderr.read()

    seen = {}  # reader -> "before", "after" or "exit 75"
    for name, proc in readers + [("sql", patient)]:
        out, err = proc.communicate(timeout=60)
        assert "Traceback" not in err, err
        if proc.returncode == 75:
            assert len(err.strip().splitlines()) == 1 and "busy" in err, err
            seen[proc] = "exit 75"
        else:
            assert proc.returncode == 0, err
            assert comparable(name, out) in states["expected"][name], out
            seen[proc] = states["expected"][name][comparable(name, out)]
    outcomes = list(seen.values())
    tally.measured["readers racing a sync"] = (f"{outcomes.count('before')} read the state before, "
                                              f"{outcomes.count('exit 75')} exited 75, "
                                              f"{outcomes.count('after')} read the state after")
    assert "exit 75" in outcomes, "no reader met the sync's open warehouse: the race did not happen"
    assert seen[patient] == "after"  # it waited for the commit
    after_renames = {p.name: "<run>" for p in run_dirs(states["after"])[-1:]}
    our_renames = {p.name: "<run>" for p in run_dirs(data)[-1:]}
    assert fingerprints(data, our_renames) == fingerprints(states["after"], after_renames)


def test_a_sync_waits_for_a_reader_holding_the_warehouse(states):
    data = states["root"] / "held-briefly"
    shutil.copytree(states["base"], data)
    reader = duckdb.connect(str(warehouse_of(data)), read_only=True)
    threading.Timer(1.5, reader.close).start()
    result = subprocess.run([sys.executable, "-m", "pipeline", "sync", "--offline", str(states["run"])],
                            capture_output=True, text=True, env=subprocess_env(data), timeout=60)
    assert result.returncode == 0, result.stderr


def test_a_sync_stops_with_75_when_a_reader_holds_on_and_the_next_sync_loads_its_run(states):
    data = states["root"] / "held-long"
    shutil.copytree(states["base"], data)
    before = fingerprints(data)
    reader = duckdb.connect(str(warehouse_of(data)), read_only=True)
    try:
        result = subprocess.run([sys.executable, "-m", "pipeline", "sync", "--offline", str(states["run"])],
                                capture_output=True, text=True, env=subprocess_env(data, **SHORT_WAIT), timeout=60)
    finally:
        reader.close()
    assert result.returncode == 75 and "Traceback" not in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1 and "in use by another process" in result.stderr
    assert fingerprints(data) == before
    held_run = run_dirs(data)[-1]
    assert read_run(held_run).complete  # fetched whole; loaded by the next sync
    assert main(["--data-dir", str(data), "-q", "sync", "--offline", "--sources", "api"]) == 0
    con = duckdb.connect(str(warehouse_of(data)), read_only=True)
    try:
        assert held_run.name in {r[0] for r in con.execute("SELECT run_id FROM sync_run").fetchall()}
    finally:
        con.close()


def test_a_sync_during_a_rebuild_exits_75_at_once(states):
    data = states["root"] / "rebuilding"
    shutil.copytree(states["after"], data)
    before = fingerprints(data)
    rebuild = start(data, ["rebuild"], CASEFILE_FAILPOINT="before_commit:sleep=1")  # per run: two runs
    wait_for(lambda: (warehouse_of(data).parent / "casefile.duckdb.rebuild").exists())
    result = subprocess.run([sys.executable, "-m", "pipeline", "sync", "--offline"], capture_output=True, text=True,
                            env=subprocess_env(data), timeout=60)
    assert result.returncode == 75 and "another casefile sync, rebuild, prune or rules ingest holds the lock" in result.stderr
    assert rebuild.wait(timeout=60) == 0
    assert fingerprints(data) == before


# `status` and `doctor` ask whether a sync runs, in a loop here for 2 s, while this process takes
# and releases the sync lock as fast as it can: asking must never be what turns a sync away.
PROBE_LOOP = """
import sys, time
from pipeline.lock import holder_pid
path, until = sys.argv[1], time.monotonic() + 2.0
probes = held = 0
while time.monotonic() < until:
    probes += 1
    held += holder_pid(path) is not None
print(probes, held)
"""


def test_asking_whether_a_sync_runs_never_makes_a_sync_fail(tmp_path):
    from pipeline.errors import LockBusy
    from pipeline.lock import SyncLock

    path = tmp_path / "sync.lock"
    with SyncLock(path):
        pass  # the lock file exists, as after any sync
    prober = subprocess.Popen([sys.executable, "-c", PROBE_LOOP, str(path)], stdout=subprocess.PIPE, text=True,
                              env=subprocess_env(tmp_path))
    taken = busy = 0
    while prober.poll() is None:
        try:
            with SyncLock(path):
                taken += 1
        except LockBusy:
            busy += 1
    probes, held = map(int, prober.communicate(timeout=30)[0].split())
    assert busy == 0, f"{busy} of {taken + busy} acquisitions refused while {probes} probes ran"
    assert taken > 1000 and probes > 1000 and held > 0  # the two raced, and the probe saw the lock held


def test_the_lock_probe_names_the_holder_and_changes_nothing(tmp_path, monkeypatch):
    from pipeline import lock

    path = tmp_path / "sync.lock"
    assert lock.holder_pid(path) is None and not path.exists()
    with lock.SyncLock(path):
        modes = []

        def recording_open(file, mode="r", *args, **kwargs):
            modes.append(mode)
            return open(file, mode, *args, **kwargs)

        monkeypatch.setattr(lock, "open", recording_open, raising=False)
        assert lock.holder_pid(path) == os.getpid()
        assert modes == ["rb"]  # read-only: a reader who may not write the file still gets an answer
        monkeypatch.undo()
    assert lock.holder_pid(path) is None and path.read_bytes() == b""


def test_without_ofd_locks_the_lock_falls_back_to_flock(tmp_path, monkeypatch):
    # macOS and the BSDs have no F_OFD_SETLK: the same lock through flock, not a crash
    from pipeline import lock
    from pipeline.errors import LockBusy

    monkeypatch.setattr(lock, "_OFD", False)
    path = tmp_path / "sync.lock"
    assert lock.holder_pid(path) is None
    with lock.SyncLock(path):
        assert lock.holder_pid(path) == os.getpid()
        with pytest.raises(LockBusy, match=f"pid {os.getpid()}"):
            with lock.SyncLock(path):
                pass
    assert lock.holder_pid(path) is None
    with lock.SyncLock(path):  # released: taken again at once
        pass


def test_a_kernel_without_ofd_locks_gets_flock_and_no_traceback(tmp_path, monkeypatch):
    # Linux before 3.15 and some sandboxes answer EINVAL to F_OFD_SETLK and F_OFD_GETLK
    import errno
    import fcntl

    from pipeline import lock
    from pipeline.errors import LockBusy

    real = fcntl.fcntl

    def no_ofd(fd, command, arg=0):
        if command in (fcntl.F_OFD_SETLK, fcntl.F_OFD_GETLK):
            raise OSError(errno.EINVAL, "Invalid argument")
        return real(fd, command, arg)

    monkeypatch.setattr(lock, "_OFD", True)
    monkeypatch.setattr(fcntl, "fcntl", no_ofd)
    path = tmp_path / "sync.lock"
    with lock.SyncLock(path):
        assert lock._OFD is False
        assert lock.holder_pid(path) == os.getpid()
        with pytest.raises(LockBusy):
            with lock.SyncLock(path):
                pass
    assert lock.holder_pid(path) is None
    monkeypatch.setattr(lock, "_OFD", True)  # the probe alone meets the answer first, too
    assert lock.holder_pid(path) is None and lock._OFD is False


@pytest.mark.parametrize("unreadable", ["a folder", "no permission"])
def test_a_lock_file_that_cannot_be_read_is_a_configuration_error_for_status_and_doctor(
        data_dir, capsys, monkeypatch, unreadable):
    # a folder where the lock file should be (as a container's volume mount of a missing file
    # makes), or a lock file made under a umask that lets only its owner read it
    from pipeline import lock

    assert main(["--data-dir", str(data_dir), "-q", "sync", "--offline"]) == 0
    path = data_dir / "sync.lock"
    if unreadable == "a folder":
        path.unlink()
        path.mkdir()
    else:
        def refused(file, mode="r", *args, **kwargs):  # as chmod 600 by another user would (even for root)
            if Path(file) == path:
                raise PermissionError(13, "Permission denied", str(file))
            return open(file, mode, *args, **kwargs)

        monkeypatch.setattr(lock, "open", refused, raising=False)
    capsys.readouterr()
    assert main(["--data-dir", str(data_dir), "status"]) == 78
    err = capsys.readouterr().err
    assert err.startswith(f"casefile: error: cannot read the sync lock {path} (") and "Traceback" not in err
    assert main(["--data-dir", str(data_dir), "doctor", "--format", "json"]) == 78
    findings = {(f["level"], f["area"]) for f in json.loads(capsys.readouterr().out)}
    assert ("fail", "lock") in findings and ("ok", "warehouse") in findings and ("ok", "raw") in findings


def test_status_while_a_sync_renames_a_temporary_file_into_place_is_no_traceback(data_dir, monkeypatch, capsys):
    # the moment is made on purpose: each temporary body is renamed to its final name just as
    # status asks for its size, as a sync writing its run at that instant does
    assert main(["--data-dir", str(data_dir), "-q", "sync", "--offline"]) == 0
    [run] = run_dirs(data_dir)
    body = sorted((run / "docs" / "scryfall-api").iterdir())[0]
    tmp = body.with_name(f".{body.name}.tmp-1-abcdef")
    os.rename(body, tmp)
    real_stat, real_lstat = os.stat, os.lstat

    def renamed_first(path, *args, **kwargs):
        if ".tmp-" in os.fspath(path) and real_lstat(path):
            os.rename(path, body)
        return real_stat(path, *args, **kwargs)

    monkeypatch.setattr(os, "stat", renamed_first)
    monkeypatch.setattr(os, "lstat", lambda path, *args, **kwargs: renamed_first(path, follow_symlinks=False))
    capsys.readouterr()
    assert main(["--data-dir", str(data_dir), "status", "--format", "json"]) == 0
    monkeypatch.undo()
    assert body.is_file() and not tmp.exists()
    assert json.loads(capsys.readouterr().out)["runs"]["complete"] == 1


def test_status_while_a_prune_renames_a_run_away_counts_it_gone(data_dir, monkeypatch, capsys):
    # a prune renames each run it deletes out of the store's view first; here it does so just
    # as status, having listed the folder, reads its run.json
    from pipeline import rawstore

    assert main(["--data-dir", str(data_dir), "-q", "sync", "--offline"]) == 0
    [run] = run_dirs(data_dir)
    real = rawstore.read_run

    def renamed_away_first(path):
        if path.exists():
            os.rename(path, path.with_name(f".deleting-{path.name}"))
        return real(path)

    monkeypatch.setattr(rawstore, "read_run", renamed_away_first)
    capsys.readouterr()
    assert main(["--data-dir", str(data_dir), "status", "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["runs"]["total"] == 0


@pytest.mark.parametrize("command", [["sync", "--offline"], ["status"], ["doctor", "--format", "json"]])
def test_a_file_system_without_file_locks_is_a_configuration_error_not_a_traceback(
        data_dir, capsys, monkeypatch, command):
    # an NFS mount whose lock service does not run answers ENOLCK to every lock call
    import errno
    import fcntl

    from pipeline.lock import SyncLock

    with SyncLock(data_dir / "sync.lock"):
        pass  # the lock file exists, as after any sync

    def no_locks(*args, **kwargs):
        raise OSError(errno.ENOLCK, os.strerror(errno.ENOLCK))

    monkeypatch.setattr(fcntl, "fcntl", no_locks)
    monkeypatch.setattr(fcntl, "flock", no_locks)
    assert main(["--data-dir", str(data_dir), *command]) == 78
    out, err = capsys.readouterr()
    message = f"cannot lock {data_dir / 'sync.lock'} (No locks available): the data folder must be on a file system"
    if command[0] == "doctor":
        assert [f["finding"] for f in json.loads(out) if f["level"] == "fail"][0].startswith(message)
    else:
        assert err.startswith(f"casefile: error: {message}") and "Traceback" not in err
    assert run_dirs(data_dir) == []
