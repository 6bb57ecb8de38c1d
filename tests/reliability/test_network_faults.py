"""Network faults: a live sync (subprocess CLI) against a loopback Scryfall that misbehaves.

Scenarios run side by side, each with its own server and data folder; the tests check the exit
code, what the server saw, the warehouse unchanged when the run fails, and the quarantined body.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from pipeline.cli import main
from pipeline.rawstore import read_manifest, read_run

from conftest import subprocess_env
from support import tally
from support.fake_scryfall import MAINTENANCE_PAGE, FakeScryfall
from support.sample_data import sample_api_data
from support.warehouse_state import fingerprints, raw_run_problems, run_dirs

pytestmark = pytest.mark.reliability

ATTEMPTS = 3
READ_TIMEOUT_S = 1.0
RETRY_AFTER_CAP_S = 3.0
RETRY_SETTINGS = {"CASEFILE_MAX_ATTEMPTS": str(ATTEMPTS), "CASEFILE_BACKOFF_BASE": "0.05",
                  "CASEFILE_BACKOFF_MAX": "0.2", "CASEFILE_RETRY_AFTER_MIN": "0.5",
                  "CASEFILE_RETRY_AFTER_MAX": str(RETRY_AFTER_CAP_S), "CASEFILE_READ_TIMEOUT": str(READ_TIMEOUT_S),
                  "CASEFILE_CONNECT_TIMEOUT": "1"}
CARDS, RULINGS, SETS = sample_api_data()
ORACLE_IDS = sorted(RULINGS)
FORBIDDEN = {"object": "error", "code": "forbidden", "status": 403, "details": "You may not use this API."}
WORKERS = 4  # scenarios at once: they spend most of their time waiting on the pacing floors


@dataclass(frozen=True)
class Scenario:
    name: str
    faults: tuple  # (path prefix, kind, times, params)
    exit_code: int
    env: dict = field(default_factory=dict)


def _first_card_id(oracle_id: str) -> str:
    return next(c["id"] for c in CARDS if c.get("oracle_id") == oracle_id and c.get("lang", "en") == "en")


# The longest first, so that the pool ends early.
SCENARIOS = [
    Scenario("every-fault-once-then-fine", (
        ("/cards/search", "500", 1, {}),
        (f"/cards/{_first_card_id(ORACLE_IDS[0])}/rulings", "truncated", 1, {}),
        (f"/cards/{_first_card_id(ORACLE_IDS[1])}/rulings", "invalid_json", 1, {}),
        (f"/cards/{_first_card_id(ORACLE_IDS[2])}/rulings", "reset", 1, {}),
        (f"/cards/{_first_card_id(ORACLE_IDS[3])}/rulings", "503", 1, {}),
        (f"/cards/{_first_card_id(ORACLE_IDS[4])}/rulings", "hang", 1, {"delay": 5}),
        (f"/cards/{_first_card_id(ORACLE_IDS[5])}/rulings", "trickle", 1, {"interval": 0.1, "chunk": 16}),
        ("/sets/mkm", "maintenance_html", 1, {}),
        ("/sets/mkc", "slow", 1, {"delay": 0.3}),
        ("/sets/pmkm", "429", 1, {"retry_after": 0.5}),
        ("/sets/ymkm", "redirect", 1, {"location": "/sets/YMKM", "status": 301}),
    ), 0),
    Scenario("429-waits-as-told", (("/cards/search", "429", 1, {"retry_after": 1.5}),), 0),
    Scenario("429-longer-than-the-cap", (("/cards/search", "429", 1, {"retry_after": 30}),), 75),
    Scenario("500-storm", (("/cards/search", "500", None, {}),), 75),
    Scenario("503-storm-mid-run", (("/sets/", "503", None, {"html": True}),), 75),
    Scenario("hang", (("/cards/search", "hang", None, {}),), 75, {"CASEFILE_READ_TIMEOUT": "0.5"}),
    Scenario("trickle", (("/cards/search", "trickle", None, {"interval": 0.1, "chunk": 64}),), 75,
             {"CASEFILE_READ_TIMEOUT": "0.5"}),
    Scenario("reset-storm", (("/cards/search", "reset", None, {}),), 75),
    Scenario("truncated-storm", (("/cards/search", "truncated", None, {}),), 75),
    Scenario("invalid-json-storm", (("/cards/search", "invalid_json", None, {}),), 65),
    Scenario("maintenance-page-storm", (("/cards/search", "maintenance_html", None, {}),), 75),
    Scenario("oversized", (("/cards/search", "oversized", 1, {"size": 2_000_000}),), 65,
             {"CASEFILE_MAX_BYTES": "1000000"}),
    Scenario("redirect-off-host", (("/cards/search", "redirect", 1, {"location": "http://example.invalid/x"}),), 69),
    Scenario("403-refused", (("/cards/search", "status", 1, {"status": 403, "body": FORBIDDEN}),), 69),
]


@dataclass
class Result:
    scenario: Scenario
    data_dir: Path
    returncode: int
    stderr: str
    elapsed_s: float
    log: list  # the server's requests

    def faulted(self, kind: str) -> list:
        return [r for r in self.log if r.fault == kind]


def _run(scenario: Scenario, base: Path, dest: Path) -> Result:
    shutil.copytree(base, dest)
    with FakeScryfall(CARDS, RULINGS, SETS) as server:
        for prefix, kind, times, params in scenario.faults:
            server.add_fault(prefix, kind, times=times, **params)
        env = subprocess_env(dest, **{**RETRY_SETTINGS, **scenario.env})
        started = time.monotonic()
        proc = subprocess.run([sys.executable, "-m", "pipeline", "sync", "--api-url", server.url, "--sources", "api"],
                              capture_output=True, text=True, env=env, timeout=120)
        elapsed = time.monotonic() - started
        log = server.requests
    for request in log:
        if request.fault:
            tally.faults[request.fault] += 1
    return Result(scenario, dest, proc.returncode, proc.stderr, elapsed, log)


@pytest.fixture(scope="module")
def base(tmp_path_factory) -> Path:
    data = tmp_path_factory.mktemp("faults") / "base"
    assert main(["--data-dir", str(data), "-q", "sync", "--offline", "--sources", "api"]) == 0
    return data


@pytest.fixture(scope="module")
def results(base, tmp_path_factory) -> dict[str, Result]:
    root = tmp_path_factory.mktemp("fault-runs")
    with ThreadPoolExecutor(WORKERS) as pool:
        futures = {s.name: pool.submit(_run, s, base, root / s.name) for s in SCENARIOS}
        return {name: future.result() for name, future in futures.items()}


def _new_run(result: Result, base: Path):
    known = {p.name for p in run_dirs(base)}
    [run] = [p for p in run_dirs(result.data_dir) if p.name not in known]
    return read_run(run)


@pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda s: s.name)
def test_the_exit_code_is_the_documented_one_and_a_failed_run_changes_nothing(results, base, scenario):
    result = results[scenario.name]
    assert result.returncode == scenario.exit_code, result.stderr
    assert "Traceback" not in result.stderr
    run = _new_run(result, base)
    assert raw_run_problems(run.path, set()) == []
    if scenario.exit_code == 0:
        assert run.complete and fingerprints(result.data_dir) != fingerprints(base)
        return
    assert result.stderr.strip().splitlines()[-1].startswith("casefile: error: ")
    assert run.status == "failed", run.failure
    assert fingerprints(result.data_dir) == fingerprints(base)


def test_a_429_waits_as_long_as_told_and_no_longer_than_the_cap(results):
    result = results["429-waits-as-told"]
    first, retry = [r for r in result.log if r.path == "/cards/search"][:2]
    assert first.fault == "429" and retry.fault is None
    gap = retry.t - first.t
    tally.measured["retry after a 429 asking 1.5 s"] = f"{gap:.2f} s later"
    assert 1.5 <= gap < RETRY_AFTER_CAP_S


def test_a_429_asking_for_more_than_the_cap_stops_without_another_request(results):
    result = results["429-longer-than-the-cap"]
    assert len(result.log) == 1 and result.log[0].fault == "429"
    assert "429" in result.stderr and "try again later" in result.stderr


@pytest.mark.parametrize("name, path", [("500-storm", "/cards/search"), ("503-storm-mid-run", "/sets/"),
                                        ("reset-storm", "/cards/search"), ("truncated-storm", "/cards/search"),
                                        ("invalid-json-storm", "/cards/search"),
                                        ("maintenance-page-storm", "/cards/search")])
def test_a_storm_stops_after_the_retry_budget(results, name, path):
    result = results[name]
    asked = [r for r in result.log if r.path.startswith(path)]
    assert len(asked) == ATTEMPTS and all(r.fault for r in asked)
    assert f"gave up after {ATTEMPTS} attempts" in result.stderr


@pytest.mark.parametrize("name", ["hang", "trickle"])
def test_a_server_that_never_finishes_answering_never_holds_the_run(results, name):
    """Bounded by the read timeout on each of the attempts (a generous bound: start-up included)."""
    result = results[name]
    timeout = float(results[name].scenario.env["CASEFILE_READ_TIMEOUT"])
    assert len(result.log) == ATTEMPTS
    assert result.elapsed_s < timeout * ATTEMPTS + 10, result.elapsed_s


@pytest.mark.parametrize("name, kind, reason", [
    ("invalid-json-storm", "invalid_json", "invalid JSON"),
    ("maintenance-page-storm", "maintenance_html", "an HTML page"),
    ("truncated-storm", "truncated", "truncated body"),
    ("trickle", "trickle", "body not complete within the read timeout"),
])
def test_a_body_given_up_on_is_quarantined_with_its_reason(results, base, name, kind, reason):
    result = results[name]
    run = _new_run(result, base)
    [kept] = [e for e in read_manifest(run, include_quarantined=True) if e.quarantined]
    assert kept.quarantined.startswith(reason) and kept.path.startswith("quarantine/")
    assert kept.kind == "search" and kept.status == 200
    body = (run.path / kept.path).read_bytes()
    if kind == "invalid_json":
        assert body == b"{not json"
    elif kind == "maintenance_html":
        assert body == MAINTENANCE_PAGE
    else:  # a part of the normal answer: the list object as far as it came
        assert body.startswith(b'{"object":"list"') and 0 < len(body)
    assert read_manifest(run) == []  # never a document to load
    assert reason in result.stderr


def test_oversized_and_off_host_and_refused_answers_are_not_retried(results):
    for name in ("oversized", "redirect-off-host", "403-refused"):
        assert len(results[name].log) == 1, name
    assert "refused" in results["oversized"].stderr and "cap" in results["oversized"].stderr
    assert "example.invalid" in results["redirect-off-host"].stderr
    assert "403" in results["403-refused"].stderr and "You may not use this API." in results["403-refused"].stderr


def test_every_fault_once_is_retried_and_the_run_loads_what_a_clean_run_loads(results, base):
    result = results["every-fault-once-then-fine"]
    faulted = [r for r in result.log if r.fault]
    assert {r.fault for r in faulted} == {"500", "truncated", "invalid_json", "reset", "503", "hang", "trickle",
                                          "maintenance_html", "slow", "429", "redirect"}
    for request in faulted:  # answered late (slow) or elsewhere (redirect), or asked again and answered
        later = [r for r in result.log if r.t > request.t and r.fault is None]
        assert request.fault in ("slow", "redirect") or any(r.path == request.path for r in later), request
    tables = ("card", "card_set", "ruling", "card_ruling")
    assert fingerprints(result.data_dir, tables=tables) == fingerprints(base, tables=tables)
    run = _new_run(result, base)
    assert not [e for e in read_manifest(run, include_quarantined=True) if e.quarantined]
    summary = json.loads((run.path / "_SUCCESS").read_text())
    # one retry for each fault but the slow answer (in time), the 429 (a wait) and the redirect (followed)
    assert summary["requests"] == len(result.log) and summary["retries"] == 8
