"""What the reliability tests did, counted as they do it, for the summary line at the session's end.

``tests/conftest.py`` prints one line from these counters (``reliability: …``), so the figures
in the README's "Reliability" section are measured, never typed in.
"""

from __future__ import annotations

from collections import Counter

kills: Counter = Counter()  # SIGKILLs that hit a running casefile, by where: a failpoint, or "random time"
faults: Counter = Counter()  # faulted answers served by FakeScryfall in the network-fault runs, by kind
fuzzed: Counter = Counter()  # inputs given to each parser by the fuzz tests
seeds: dict[str, int] = {}  # the random seeds used, to replay a run
measured: dict[str, str] = {}  # single figures measured on the way: "429 retry gap" -> "1.51 s"


def summary() -> str | None:
    """One line, or None when no reliability test ran."""
    if not (kills or faults or fuzzed or measured):
        return None
    parts = []
    if kills:
        points = {where: n for where, n in sorted(kills.items()) if where != "random time"}
        listed = ", ".join(f"{where} {n}" for where, n in points.items())
        parts.append(f"{sum(kills.values())} kills ({sum(points.values())} at failpoints: {listed}; "
                     f"{kills['random time']} at random times, seed {seeds.get('kills')})")
    if faults:
        kinds = ", ".join(f"{kind} {n}" for kind, n in sorted(faults.items()))
        parts.append(f"{sum(faults.values())} faulted answers of {len(faults)} kinds ({kinds})")
    if fuzzed:
        parts.append("fuzzed inputs: " + ", ".join(f"{parser} {n:,}" for parser, n in sorted(fuzzed.items())))
    parts.extend(f"{what}: {figure}" for what, figure in sorted(measured.items()))
    return "reliability: " + "; ".join(parts)
