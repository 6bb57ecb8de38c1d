"""Two checkouts of casefile, one command, run in turns: what a change does to each call site.

    python -m bench.turns --before PATH [--after PATH] --data DIR [--pairs N] [--sites N] \
        [--json FILE] -- CASEFILE_ARGS...

For example, the code of a commit against this checkout, on the incremental sync of the
benchmark at 1x (a day-1 data folder as in bench/README.md):

    git worktree add /tmp/before HEAD~1
    python -m bench.turns --before /tmp/before --data /tmp/day1 --pairs 5 -- \
        -q sync --offline bench/out/s1/source/20000102T000000.000000Z

The machines of the benchmark drift by 10 % and more over minutes, so two trees timed one after
the other cannot be told apart by tens of milliseconds. Here each pair runs the command once on
each tree, the order alternating from pair to pair, each run in a process of its own on a fresh
copy of ``--data`` (``--data-dir`` is put before the command's arguments), through
``bench/statements.py`` of its own tree (both trees need it). It prints, per tree, the median of
the command's time and of the main thread's statements; then, pair by pair, after minus before:
the median difference of the whole command and of each call site's statements, the largest
first. A difference smaller than the spread of the pairs is noise. A relative ``--data`` or
path in the command is taken from the directory it is run in.

A development tool, not part of the tests' figures.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from bench.run import copy_flushed
from bench.statements import Statement, by_site, parse_with_command

HERE = Path(__file__).resolve().parents[1]


@dataclass
class Run:
    seconds: float               # the command, as bench/statements.py timed it
    main_s: float                # its main thread's statements
    sites: dict[str, float]      # main-thread statement seconds by call site


def summarize(saved: dict) -> Run:
    """A Run from what ``bench.statements --json`` wrote."""
    main = [Statement(**row) for row in saved["statements"] if row["thread"] == "main"]
    sites = {site: seconds for site, seconds, _ in by_site(main)}
    return Run(saved["seconds"], sum(sites.values()), sites)


def paired(before: list[Run], after: list[Run]) -> dict[str, list[float]]:
    """After minus before, pair by pair: "command", "statements" and every call site of either
    tree (a site one tree lacks counts 0 there)."""
    diffs: dict[str, list[float]] = {"command": [], "statements": []}
    sites = sorted({site for run in before + after for site in run.sites})
    for site in sites:
        diffs[site] = []
    for b, a in zip(before, after):
        diffs["command"].append(a.seconds - b.seconds)
        diffs["statements"].append(a.main_s - b.main_s)
        for site in sites:
            diffs[site].append(a.sites.get(site, 0.0) - b.sites.get(site, 0.0))
    return diffs


def report(before: list[Run], after: list[Run], n_sites: int) -> str:
    def med(values) -> float:
        return statistics.median(values)

    lines = [f"{len(before)} pairs"]
    for name, runs in (("before", before), ("after", after)):
        lines.append(f"  {name:6s} command {med(r.seconds for r in runs):.3f} s "
                     f"(runs {', '.join(f'{r.seconds:.3f}' for r in runs)}); "
                     f"main thread's statements {med(r.main_s for r in runs):.3f} s")
    diffs = paired(before, after)
    lines += ["", "after - before, median of the pairs (and their range), in ms:"]
    for key in ("command", "statements"):
        values = diffs.pop(key)
        lines.append(f"  {med(values) * 1000:+8.1f}  ({min(values) * 1000:+.1f} to {max(values) * 1000:+.1f})  {key}")
    lines.append("  by call site, the largest first:")
    for site, values in sorted(diffs.items(), key=lambda item: -abs(med(item[1])))[:n_sites]:
        lines.append(f"  {med(values) * 1000:+8.1f}  ({min(values) * 1000:+.1f} to {max(values) * 1000:+.1f})  {site}")
    return "\n".join(lines)


def _tree(path: Path) -> Path:
    """A checkout that has bench/statements.py, checked to import its own ``pipeline``."""
    path = path.resolve()
    if not (path / "bench" / "statements.py").is_file() or not (path / "pipeline").is_dir():
        raise SystemExit(f"bench.turns: {path} is not a casefile checkout with bench/statements.py")
    probe = subprocess.run([sys.executable, "-c", "import pipeline; print(pipeline.__file__)"], cwd=path,
                           env=_env(path), capture_output=True, text=True)
    if probe.returncode != 0 or not Path(probe.stdout.strip()).resolve().is_relative_to(path):
        raise SystemExit(f"bench.turns: Python run in {path} does not import its pipeline/ "
                         f"({probe.stdout.strip() or probe.stderr.strip()[-300:]})")
    return path


def _env(tree: Path) -> dict:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(tree)] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
    return env


def run_once(tree: Path, data: Path, command: list[str], scratch: Path) -> Run:
    """The command on ``tree``, on a fresh copy of ``data``."""
    copy, saved = scratch / "data", scratch / "statements.json"
    shutil.rmtree(copy, ignore_errors=True)
    shutil.copytree(data, copy, symlinks=True, copy_function=copy_flushed)  # on disk, as a day-old folder is
    proc = subprocess.run([sys.executable, "-m", "bench.statements", "--over", "1e9", "--json", str(saved), "--",
                           "--data-dir", str(copy), *command], cwd=tree, env=_env(tree),
                          capture_output=True, text=True)
    if proc.returncode != 0:
        raise SystemExit(f"bench.turns: the command failed on {tree} (exit {proc.returncode}):\n"
                         f"{proc.stderr[-3000:]}")
    return summarize(json.loads(saved.read_text("utf-8")))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.turns", description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--before", type=Path, required=True, help="the checkout to compare against")
    parser.add_argument("--after", type=Path, default=HERE, help="the checkout with the change (default: this one)")
    parser.add_argument("--data", type=Path, required=True, help="the data folder each run starts from (copied)")
    parser.add_argument("--pairs", type=int, default=5, help="runs of each tree (default 5)")
    parser.add_argument("--sites", type=int, default=15, metavar="N", help="call sites shown (default 15)")
    parser.add_argument("--json", type=Path, metavar="FILE", help="also write every run's figures to FILE")
    args, command = parse_with_command(parser, argv, "-q sync --offline RUN")
    if args.pairs < 1:
        parser.error("--pairs must be 1 or more")
    if not args.data.is_dir():
        parser.error(f"--data {args.data}: no such folder")
    data = args.data.resolve()
    # the command's relative paths, as the user typed them, from here (each run has its tree as cwd)
    command = [str(Path(a).resolve()) if not a.startswith("-") and Path(a).exists() else a for a in command]
    trees = {"before": _tree(args.before), "after": _tree(args.after)}
    runs: dict[str, list[Run]] = {"before": [], "after": []}
    with tempfile.TemporaryDirectory(prefix="casefile-turns-") as scratch:
        for i in range(args.pairs):
            for name in (("before", "after") if i % 2 == 0 else ("after", "before")):
                run = run_once(trees[name], data, command, Path(scratch))
                runs[name].append(run)
                print(f"pair {i + 1}: {name} {run.seconds:.3f} s", file=sys.stderr, flush=True)
    print(report(runs["before"], runs["after"], args.sites))
    if args.json:
        args.json.write_text(json.dumps({name: [vars(r) for r in rs] for name, rs in runs.items()}, indent=1), "utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
