"""Shared fixtures. The network guard is installed before any test runs: loopback only."""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent
ROOT = TESTS.parent
FIXTURES = TESTS / "fixtures"
NETGUARD = TESTS / "support" / "netguard"

_spec = importlib.util.spec_from_file_location("casefile_netguard", NETGUARD / "sitecustomize.py")
netguard = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(netguard)  # installs the guard in this process


@pytest.fixture
def data_dir(tmp_path: Path) -> Path:
    """An empty data folder (raw/ and warehouse/ are created by the code under test)."""
    path = tmp_path / "data"
    path.mkdir()
    return path


@pytest.fixture
def settings(data_dir: Path):
    from pipeline.config import Settings, validate

    return validate(Settings(data_dir=data_dir, retry_after_min_s=0.0, retry_after_max_s=5.0,
                             backoff_base_s=0.01, backoff_max_s=0.05, read_timeout_s=5.0,
                             connect_timeout_s=2.0, max_attempts=3, reader_wait_s=0.5))


def subprocess_env(data_dir: Path, **extra: str) -> dict:
    """Environment for a `casefile` subprocess: guarded network, its own data folder."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("CASEFILE_")}
    env["PYTHONPATH"] = os.pathsep.join([str(NETGUARD), str(ROOT)] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
    env["CASEFILE_DATA_DIR"] = str(data_dir)
    env.update(extra)
    return env


def run_cli(args: list[str], data_dir: Path, timeout: float = 120, stdin=None,
            **extra_env: str) -> subprocess.CompletedProcess:
    """Run `python -m pipeline ...` in a real subprocess, as cron would; ``stdin``: an open file
    to read from, as ``< FILE`` in a shell (default: this process's)."""
    return subprocess.run([sys.executable, "-m", "pipeline", *args], capture_output=True, text=True, stdin=stdin,
                          env=subprocess_env(data_dir, **extra_env), timeout=timeout, cwd=str(data_dir.parent))


@pytest.fixture
def cli(data_dir: Path):
    def invoke(*args: str, **env: str) -> subprocess.CompletedProcess:
        return run_cli(list(args), data_dir, **env)
    return invoke


def other_group() -> int:
    """A group id this process may give its files other than its own: any group for root (the
    tests run as root), else one of its supplementary groups."""
    if os.geteuid() == 0:
        return 1 if os.getegid() != 1 else 2
    others = [gid for gid in os.getgroups() if gid != os.getegid()]
    if not others:
        pytest.skip("no group to give a file but the process's own (not root, no supplementary group)")
    return others[0]


def pytest_addoption(parser):
    parser.addoption("--update-golden", action="store_true",
                     help="Rewrite the golden files under tests/golden/ from the current output.")


@pytest.fixture
def golden(request):
    """Compare text with tests/golden/<name>; with --update-golden, rewrite the file instead."""
    update = request.config.getoption("--update-golden")

    def check(name: str, text: str) -> None:
        path = TESTS / "golden" / name
        if update:
            path.parent.mkdir(exist_ok=True)
            path.write_text(text, "utf-8")
        assert path.exists(), f"no golden file {path}; run pytest --update-golden"
        assert text == path.read_text("utf-8")
    return check


@pytest.fixture(scope="session")
def sample_warehouse(tmp_path_factory) -> Path:
    """A data folder synced once from the bundled sample; tests must only read it."""
    from pipeline.cli import main

    data = tmp_path_factory.mktemp("sample") / "data"
    assert main(["--data-dir", str(data), "-q", "sync", "--offline"]) == 0
    return data


@pytest.fixture(scope="session")
def sample_data_dir(tmp_path_factory) -> Path:
    """A data folder synced once from the API part of the bundled sample (``--sources api``: 40
    rulings, each seen once per card), shared by the report and export tests: never change it
    (copy it first, as ``warehouse_copy`` does)."""
    from pipeline.cli import main

    path = tmp_path_factory.mktemp("sample-api") / "data"
    assert main(["--data-dir", str(path), "-q", "sync", "--offline", "--sources", "api"]) == 0
    return path


@pytest.fixture
def warehouse_copy(sample_data_dir: Path, tmp_path: Path):
    """A private copy of ``sample_data_dir``, changed by plain SQL statements given to the factory
    (test-only rows: never in the bundled sample)."""
    import duckdb

    def make(*statements: str, params: dict | None = None) -> Path:
        data = tmp_path / "data-copy"
        shutil.copytree(sample_data_dir, data)
        con = duckdb.connect(str(data / "warehouse" / "casefile.duckdb"))
        try:
            for statement in statements:
                con.execute(statement, params if params and "$" in statement else None)
        finally:
            con.close()
        return data
    return make


def pytest_terminal_summary(terminalreporter):
    """The reliability figures of this session (kills, faults, fuzzed inputs), measured."""
    from support import tally

    line = tally.summary()
    if line:
        terminalreporter.write_line(line)
