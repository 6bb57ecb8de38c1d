"""The one way casefile writes a timestamp: ISO 8601, UTC, microseconds, a trailing Z; and reads one."""

from __future__ import annotations

from datetime import datetime, timezone


def utc_now_iso() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="microseconds").replace("+00:00", "Z")


def parse_utc_iso(value) -> datetime | None:
    """A timestamp as ``utc_now_iso`` writes it (one without a zone read as UTC), or None when it is
    missing or unreadable (a manifest edited by hand)."""
    try:
        found = datetime.fromisoformat(str(value).replace("Z", "+00:00")) if value else None
    except ValueError:
        return None
    return found.replace(tzinfo=timezone.utc) if found is not None and found.tzinfo is None else found
