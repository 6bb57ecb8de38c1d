"""The one way casefile writes a timestamp: ISO 8601, UTC, microseconds, a trailing Z."""

from __future__ import annotations

from datetime import datetime, timezone


def utc_now_iso() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="microseconds").replace("+00:00", "Z")
