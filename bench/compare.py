"""Two statement profiles of one casefile command, statement by statement.

    python -m bench.compare A.json B.json [--over MS] [--top N]

A and B are files written by ``python -m bench.statements --json``: the same command on two
inputs (a quiet day and a 1 % day, say) or on two checkouts. Each statement of B is paired with
one of A: the k-th statement run from the same call site, on the main thread or off it, with the
same first line of SQL once its quoted strings and hexadecimal names are masked (file and
table names carry the hash of a day's file, a process's temporary name, the data folder).

Prints both commands' times, the main thread's totals, how the difference spreads over the pairs
(how many differ by more than ``--over`` milliseconds, and what they add up to), the ``--top``
largest differences each way, and what ran on one side only.

One pair of runs moves with the machine's noise: a statement whose work is the same on both
sides shows how large that is (bench/FINDINGS.md, "Machine K, a fifth session").
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

_QUOTED = re.compile(r"'(?:[^']|'')*'?")
_HEX = re.compile(r"(?<![0-9A-Za-z])[0-9a-f]{8,}(?![0-9A-Za-z])")


@dataclass(frozen=True)
class Pair:
    key: tuple[str, bool, str]  # (site, on the main thread, masked SQL)
    a: float | None             # seconds, None where the statement ran on B's side only
    b: float | None

    @property
    def difference(self) -> float:
        return (self.b or 0.0) - (self.a or 0.0)


def masked(sql: str) -> str:
    """A statement's label with its quoted strings replaced by '' and its runs of eight or more
    hexadecimal digits (a name's hash) by #. A label that bench.statements cut short ends where
    the cut fell, which moves with the length of its strings: it is kept up to its first string."""
    text = _HEX.sub("#", _QUOTED.sub("''", sql))
    if sql.endswith("…") and "''" in text:
        text = text[:text.index("''") + 2] + "…"
    return text


def pair(a: list[dict], b: list[dict]) -> list[Pair]:
    """The statements of two profiles paired by call site, thread (main or not) and masked SQL,
    in the order they ran; a statement without a counterpart is paired with None."""
    def grouped(rows: list[dict]) -> dict[tuple[str, bool, str], list[float]]:
        groups: dict[tuple[str, bool, str], list[float]] = defaultdict(list)
        for row in rows:
            groups[(row["site"], row["thread"] == "main", masked(row["sql"]))].append(float(row["seconds"]))
        return groups

    left, right = grouped(a), grouped(b)
    pairs = []
    for key in list(left) + [k for k in right if k not in left]:
        times_a, times_b = left.get(key, []), right.get(key, [])
        for i in range(max(len(times_a), len(times_b))):
            pairs.append(Pair(key, times_a[i] if i < len(times_a) else None, times_b[i] if i < len(times_b) else None))
    return pairs


def report(a: dict, b: dict, over_ms: float, top: int) -> str:
    pairs = pair(a["statements"], b["statements"])
    both = [p for p in pairs if p.a is not None and p.b is not None]
    main = [p for p in both if p.key[1]]
    lines = [f"command: A {a['seconds']:.3f} s, B {b['seconds']:.3f} s, B - A {b['seconds'] - a['seconds']:+.3f} s"]
    for label, on_main in (("main thread", True), ("other threads", False)):
        side = [p for p in both if p.key[1] == on_main]
        sum_a, sum_b = sum(p.a for p in side), sum(p.b for p in side)
        lines.append(f"{label}: {len(side)} pairs, A {sum_a:.3f} s, B {sum_b:.3f} s, B - A {sum_b - sum_a:+.3f} s")
    over = over_ms / 1000
    for word, chosen in (("longer", [p for p in main if p.difference > over]),
                         ("shorter", [p for p in main if p.difference < -over])):
        lines.append(f"main-thread pairs more than {over_ms:g} ms {word} in B: {len(chosen)}, "
                     f"{sum(p.difference for p in chosen):+.3f} s in all")
    ordered = sorted(main, key=lambda p: p.difference)
    for word, chosen in (("longer", [p for p in reversed(ordered) if p.difference > 0][:top]),
                         ("shorter", [p for p in ordered if p.difference < 0][:top])):
        if not chosen:
            continue
        lines += ["", f"the {len(chosen)} largest differences, B {word} (ms: B - A, A, B):"]
        for p in chosen:
            lines.append(f"  {p.difference * 1000:+8.1f} {p.a * 1000:8.1f} {p.b * 1000:8.1f}  "
                         f"{p.key[0]:28s} {p.key[2]}")
    for side, alone in (("A", [p for p in pairs if p.b is None]), ("B", [p for p in pairs if p.a is None])):
        if alone:
            seconds = sum((p.a if side == "A" else p.b) for p in alone)
            lines.append(f"ran in {side} only: {len(alone)} statements, {seconds:.3f} s")
    return "\n".join(lines)


def _load(path: Path) -> dict:
    try:
        data = json.loads(path.read_text("utf-8"))
    except (OSError, ValueError) as exc:
        raise SystemExit(f"python -m bench.compare: cannot read {path}: {exc}") from None
    if not isinstance(data, dict) or not isinstance(data.get("statements"), list) or "seconds" not in data:
        raise SystemExit(f"python -m bench.compare: {path} is not a file of python -m bench.statements --json")
    return data


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.compare", description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("a", type=Path, metavar="A.json", help="the first profile (python -m bench.statements --json)")
    parser.add_argument("b", type=Path, metavar="B.json", help="the second profile")
    parser.add_argument("--over", type=float, default=5.0, metavar="MS",
                        help="count the pairs that differ by more than MS milliseconds (default 5)")
    parser.add_argument("--top", type=int, default=10, metavar="N",
                        help="largest differences listed each way (default 10)")
    args = parser.parse_args(argv)
    print(report(_load(args.a), _load(args.b), args.over, args.top))
    return 0


if __name__ == "__main__":
    sys.exit(main())
