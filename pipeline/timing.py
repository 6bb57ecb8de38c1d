"""Where a sync's time goes: named phases, summed, for the run summary (``timings_s``).

``recording()`` starts a record for the code it wraps; ``phase(name)`` adds the time of its block
to that record (nothing when no record is open, so a library call costs nothing). A name with a
dot is a part of the phase before the dot ("build.lines" is part of "build"): the parts need not
cover their phase, and what they leave is the phase's own work.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

_record: ContextVar[dict[str, float] | None] = ContextVar("casefile_timings", default=None)


@contextmanager
def recording() -> Iterator[dict[str, float]]:
    """A fresh record of phases (name -> seconds) for the block; yields it."""
    record: dict[str, float] = {}
    token = _record.set(record)
    try:
        yield record
    finally:
        _record.reset(token)


@contextmanager
def phase(name: str) -> Iterator[None]:
    """Add the block's wall time to ``name`` in the open record, if any (repeated blocks add up)."""
    record = _record.get()
    started = time.perf_counter()
    try:
        yield
    finally:
        if record is not None:
            record[name] = record.get(name, 0.0) + time.perf_counter() - started


def rounded(record: dict[str, float]) -> dict[str, float]:
    """The record in milliseconds' precision, phases in the order they first ended."""
    return {name: round(seconds, 3) for name, seconds in record.items()}


def describe(record: dict[str, float]) -> str:
    """The record as one line: each phase, its parts in brackets after it."""
    shown = []
    for name, seconds in record.items():
        if "." not in name:
            parts = [f"{part.split('.', 1)[1]} {s:.2f}" for part, s in record.items() if part.startswith(name + ".")]
            shown.append(f"{name} {seconds:.2f} s" + (f" ({', '.join(parts)})" if parts else ""))
    return "; ".join(shown)


def top_level(record: dict[str, float]) -> float:
    """The time of the phases that are not parts of others."""
    return sum(seconds for name, seconds in record.items() if "." not in name)
