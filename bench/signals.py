"""A signal sent at random moments of one casefile command: how each run of it ended.

    python -m bench.signals --data DIR [--signal INT|TERM] [--count N] [--between A B] \
        [--seed S] [--json FILE] -- CASEFILE_ARGS...

For example, Ctrl-C at 200 moments of the first 0.4 s of the 1x incremental sync (a day-1 data
folder as in bench/README.md):

    python -m bench.signals --data /tmp/day1 --count 200 --between 0.02 0.4 -- \
        -q sync --offline bench/out/s1/source/20000102T000000.000000Z

Each run is a process of its own (``python -m pipeline --data-dir COPY ...``) on a copy of
``--data``, made once (``--data`` itself is never written); the signal comes after a delay drawn
between A and B seconds. A run the signal stops leaves the copy as it was (README, "Exit codes");
a run that loaded its run (it ended first, or the signal came just after the commit) changed it,
and the copy is made again for the next run.

Each run falls in one class:

- ``stopped``: the exit the README documents for the signal, 130 for INT, 75 for TERM;
- ``before casefile``: the signal came before casefile's code could take it, in Python's own
  start-up: killed by the signal (or, for INT, exit 1 from its site packages), with no line of
  casefile's and no run folder made;
- ``completed``: exit 0, the command ended before the signal;
- ``other``: anything else, printed with the tail of its stderr. There should be none.

It prints each exit code with its runs and delays, then one JSON object. A development tool, not
part of the tests' figures.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter, defaultdict
from pathlib import Path

from bench.run import copy_data
from bench.statements import parse_with_command

HERE = Path(__file__).resolve().parents[1]
STOPPED = {"INT": {130}, "TERM": {75}}


def classify(name: str, code: int, stderr: str, new_runs: list[str]) -> str:
    """The class of one run (see the module's note). ``new_runs``: the statuses of the run folders
    it made (complete, aborted, ...)."""
    if code in STOPPED[name]:
        return "stopped"
    if code == 0:
        return "completed"
    signum = getattr(signal, f"SIG{name}")
    if (code == -signum or (name == "INT" and code == 1)) and "casefile:" not in stderr and not new_runs:
        return "before casefile"
    return "other"


def _run_statuses(raw: Path, before: set[str]) -> list[str]:
    """The statuses of the run folders of ``raw`` not in ``before``."""
    statuses = []
    for folder in sorted(p for p in raw.iterdir() if p.is_dir() and p.name not in before) if raw.is_dir() else []:
        if (folder / "_SUCCESS").exists():
            statuses.append("complete")
        elif (folder / "_FAILED").exists():
            statuses.append(json.loads((folder / "_FAILED").read_text("utf-8")).get("status", "failed"))
        else:
            statuses.append("incomplete")
    return statuses


def trial(data: Path, command: list[str], name: str, delay: float) -> dict:
    """One run of the command on ``data``, sent SIG``name`` after ``delay`` seconds."""
    raw = data / "raw"
    before = {p.name for p in raw.iterdir()} if raw.is_dir() else set()
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(HERE)] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
    proc = subprocess.Popen([sys.executable, "-m", "pipeline", "--data-dir", str(data), *command], cwd=HERE,
                            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    time.sleep(delay)
    if proc.poll() is None:
        proc.send_signal(getattr(signal, f"SIG{name}"))
    _, stderr = proc.communicate(timeout=600)
    new_runs = _run_statuses(raw, before)
    return {"delay": round(delay, 3), "exit": proc.returncode, "runs": new_runs,
            "class": classify(name, proc.returncode, stderr, new_runs), "stderr": stderr[-600:]}


def report(name: str, trials: list[dict]) -> tuple[str, dict]:
    """The text and the JSON summary of the runs."""
    by_exit: dict[int, list[float]] = defaultdict(list)
    for t in trials:
        by_exit[t["exit"]].append(t["delay"])
    classes = Counter(t["class"] for t in trials)
    lines = [f"SIG{name}, {len(trials)} runs: " + ", ".join(f"{c} {classes[c]}" for c in
                                                            ("stopped", "before casefile", "completed", "other"))]
    for code, delays in sorted(by_exit.items()):
        lines.append(f"  exit {code:>4}: {len(delays):>4} runs, signal after {min(delays):.3f}-{max(delays):.3f} s")
    for t in trials:
        if t["class"] == "other":
            lines.append(f"  other: exit {t['exit']} after {t['delay']} s, runs {t['runs']}: {t['stderr'].strip()[-300:]!r}")
    summary = {"signal": name, "runs": len(trials), "classes": dict(classes),
               "exits": {str(code): len(delays) for code, delays in sorted(by_exit.items())}}
    return "\n".join(lines), summary


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.signals", description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, required=True, help="the data folder the runs start from (copied)")
    parser.add_argument("--signal", choices=sorted(STOPPED), default="INT", help="INT (Ctrl-C, default) or TERM")
    parser.add_argument("--count", type=int, default=50, help="runs (default 50)")
    parser.add_argument("--between", type=float, nargs=2, default=(0.02, 1.0), metavar=("A", "B"),
                        help="the signal's delay after the start, drawn between A and B seconds (default 0.02 1)")
    parser.add_argument("--seed", type=int, default=None, help="seed of the delays (default: drawn, and printed)")
    parser.add_argument("--json", type=Path, metavar="FILE", help="also write every run to FILE")
    args, command = parse_with_command(parser, argv, "-q sync --offline RUN")
    low, high = args.between
    if args.count < 1:
        parser.error("--count must be 1 or more")
    if not 0 <= low <= high:
        parser.error("--between A B: 0 <= A <= B")
    if not args.data.is_dir():
        parser.error(f"--data {args.data}: no such folder")
    seed = args.seed if args.seed is not None else random.randrange(2**31)
    draw = random.Random(seed)
    command = [str(Path(a).resolve()) if not a.startswith("-") and Path(a).exists() else a for a in command]
    trials = []
    with tempfile.TemporaryDirectory(prefix="casefile-signals-") as scratch:
        copy = Path(scratch) / "data"
        copy_data(args.data.resolve(), copy)
        for i in range(args.count):
            t = trial(copy, command, args.signal, draw.uniform(low, high))
            trials.append(t)
            print(f"run {i + 1}: exit {t['exit']} after {t['delay']} s ({t['class']})", file=sys.stderr, flush=True)
            if "complete" in t["runs"]:  # a run was loaded: the next one starts from the data given again
                shutil.rmtree(copy)
                copy_data(args.data.resolve(), copy)
    text, summary = report(args.signal, trials)
    print(text)
    print(json.dumps({**summary, "seed": seed}))
    if args.json:
        args.json.write_text(json.dumps(trials, indent=1), "utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
