"""The raw store: every response of every run, byte for byte, with a manifest.

Layout of one run (``data/raw/<run_id>/``)::

    run.json          what the run was asked to do (written first)
    docs/<origin>/    the bodies, one file each, written to a temporary name then renamed
    manifest.jsonl    one line per body: url, status, kept headers, fetched_at, sha256, path
    quarantine/       bodies that failed validation, with their reason in the manifest
    _SUCCESS          written last; a run without it is never loaded
    _FAILED           written instead when a run stops on an error (or a signal)

No network, no DuckDB. File names are made here, never taken from a URL, so no response can
write outside its run folder.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import json
import logging
import os
import re
import secrets
import shutil
import stat
from dataclasses import asdict, dataclass, replace
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Iterator

from .clock import utc_now_iso
from .errors import CasefileError, ConfigError, SourceDataError, TryAgainLater, printable
from .failpoints import failpoint

if TYPE_CHECKING:
    from .wire import Response

log = logging.getLogger(__name__)

RUN_ID_RE = re.compile(r"^\d{8}T\d{6}\.\d{6}Z$")
RUN_ID_FORMAT = "%Y%m%dT%H%M%S.%fZ"  # a run id is the UTC time the run started (RawStore._next_run_id)
# A run being deleted is first renamed to this prefix + its id: out of ``runs()`` at once.
DELETING = ".deleting-"
SUCCESS = "_SUCCESS"
FAILED = "_FAILED"
MANIFEST = "manifest.jsonl"
RUN_META = "run.json"
_SLUG = re.compile(r"[^A-Za-z0-9._-]+")


def new_run_id(now: datetime | None = None) -> str:
    now = now or datetime.now(timezone.utc)
    return now.strftime(RUN_ID_FORMAT)


def doc_id_for(url: str, body: bytes) -> str:
    """A document's identity: its URL and its bytes (two empty rulings lists are two documents)."""
    digest = hashlib.sha256(url.encode("utf-8"))
    digest.update(b"\n")
    digest.update(body)
    return digest.hexdigest()


def fsync_dir(path: Path) -> None:
    """A folder's entries to disk, where the file system allows it (some refuse fsync on a folder)."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def unwritable(exc: OSError, where: Path) -> CasefileError:
    """The error for a write to the raw store that failed: a full disk (or quota) is worth a try
    later; anything else (permissions, a read-only or immutable folder) is the data folder's setup."""
    reason = f"{exc.strerror or exc} ({exc.filename or where})"
    if exc.errno in (errno.ENOSPC, errno.EDQUOT):
        return TryAgainLater(f"cannot write to the raw store: {reason}; free some space and run again")
    return ConfigError(f"cannot write to the raw store: {reason}; casefile must be able to write the data folder")


def store_problem(root: Path) -> tuple[str, str] | None:
    """Why no run can be written in the raw store ``root``, and what to do, as (problem, remedy),
    or None: a file (or a link to nothing) where its folder should be, a read-only mount, the
    permissions (judged for the user asking: ask as the syncs' user). A store not made yet has
    none: whether the data folder can make it is the data folder's own question."""
    try:
        mode = os.stat(root).st_mode
    except FileNotFoundError:
        if os.path.islink(root):
            return "is a link to nothing", "remove the link, or make the folder it names"
        return None
    except OSError as exc:
        return f"cannot be looked into ({exc.strerror or exc})", "make it readable and writable again"
    if not stat.S_ISDIR(mode):
        return "is not a folder", "move it away: the next sync makes the folder"
    try:
        if os.statvfs(root).f_flag & os.ST_RDONLY:
            return "is on a read-only file system", "mount it writable"
    except OSError:
        pass
    if not os.access(root, os.W_OK | os.X_OK):
        return NOT_THIS_USERS, "make it writable again, for the syncs' user"
    return None


# store_problem's permissions problem: judged for the user asking, not for every user.
NOT_THIS_USERS = "may not be written by this user (permissions)"


def who_cannot(problem: str) -> str:
    """Who could not keep a run in a raw store with ``problem`` (store_problem's first part)."""
    return "no sync run by this user" if problem == NOT_THIS_USERS else "no sync or rules ingest"


@contextlib.contextmanager
def _writing(where: Path):
    """An OSError of the block, a write to the raw store under ``where``, as ``unwritable`` says."""
    try:
        yield
    except OSError as exc:
        raise unwritable(exc, where) from exc


@contextlib.contextmanager
def _removed_on_error(tmp: Path):
    """Remove the temporary file ``tmp`` when the block fails: a failed write leaves no partial file."""
    try:
        yield
    except BaseException:
        with contextlib.suppress(OSError):  # never made, or already renamed
            tmp.unlink()
        raise


def atomic_write(path: Path, data: bytes) -> None:
    """Write ``data`` so that ``path`` is either absent or complete, even after kill -9."""
    tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}-{secrets.token_hex(3)}")
    with _removed_on_error(tmp):
        with open(tmp, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    fsync_dir(path.parent)


def _json_bytes(obj) -> bytes:
    return (json.dumps(obj, ensure_ascii=False, sort_keys=True, indent=1) + "\n").encode("utf-8")


def _safe_name(seq: int, url: str, content_type: str) -> str:
    tail = url.split("?", 1)[0].rstrip("/").rsplit("/", 1)[-1] or "index"
    slug = _SLUG.sub("_", tail).strip("._")[:60] or "doc"
    ext = ".json" if "json" in content_type else ".html" if "html" in content_type else ".txt" \
        if "text/plain" in content_type else ".bin"
    return f"{seq:05d}-{slug}{ext}"


@dataclass(frozen=True)
class DocEntry:
    doc_id: str
    origin: str  # scryfall-api | mtgwiki | listeblanche | scryfall-page
    kind: str  # search | rulings | set | page | robots
    key: str | None  # what was asked for: an oracle id, a set code, a page's card
    url: str
    final_url: str
    status: int
    headers: dict
    fetched_at: str
    sha256: str
    bytes: int
    path: str  # relative to the run folder
    quarantined: str | None = None  # the reason, for bodies that failed validation
    # A 304 answer to a conditional GET: the body is the earlier run's file (``<run_id>/<path>``),
    # hard-linked (or copied) into this run so that every run stays readable on its own.
    reused_from: str | None = None
    # A page this run did not fetch, and why (robots.txt): its newest earlier copy stands in for it,
    # taken from ``reused_from`` with that fetch's status, headers and time.
    carried: str | None = None

    @classmethod
    def from_json(cls, line: dict) -> "DocEntry":
        known = {k: line.get(k) for k in cls.__dataclass_fields__}
        known["headers"] = known.get("headers") or {}
        return cls(**known)


class BodyFile:
    """A body written as it arrives: a temporary file in the run folder, hashed on the way.

    ``write`` chunks, then ``commit`` (fsync and rename to its final name) or ``discard``.
    ``reset`` starts over (a retried download). Used for bodies too large to hold in memory.
    """

    def __init__(self, folder: Path, name: str, url: str):
        self.folder = folder
        self.name = name
        self.url = url
        folder.mkdir(parents=True, exist_ok=True)
        self.tmp = folder / f".{name}.tmp-{os.getpid()}-{secrets.token_hex(3)}"
        self._fh = open(self.tmp, "wb")
        self._start()

    def _start(self) -> None:
        self.size = 0
        self._sha = hashlib.sha256()
        self._doc = hashlib.sha256(self.url.encode("utf-8"))
        self._doc.update(b"\n")

    def write(self, chunk: bytes) -> None:
        with _writing(self.folder):
            self._fh.write(chunk)
        self._sha.update(chunk)
        self._doc.update(chunk)
        self.size += len(chunk)

    def reset(self) -> None:
        with _writing(self.folder):
            self._fh.seek(0)
            self._fh.truncate()
        self._start()
        self._adopted = None

    def adopt(self, source: Path, sha256: str, doc_id: str, size: int) -> None:
        """Take an existing file of known hashes as the body (an offline replay): a hard link,
        or a copy where links cannot be made; nothing is read again."""
        self._fh.close()
        self.tmp.unlink()
        with _writing(self.folder):
            try:
                os.link(source, self.tmp)
            except OSError:
                shutil.copyfile(source, self.tmp)
            self._fh = open(self.tmp, "ab")
        self.size = size
        self._adopted = (sha256, doc_id)

    @property
    def sha256(self) -> str:
        return self._adopted[0] if getattr(self, "_adopted", None) else self._sha.hexdigest()

    @property
    def doc_id(self) -> str:
        return self._adopted[1] if getattr(self, "_adopted", None) else self._doc.hexdigest()

    def head_and_tail(self, size: int = 64) -> tuple[bytes, bytes]:
        """The first and last bytes written (to check a body's shape without reading it all)."""
        self._fh.flush()
        with open(self.tmp, "rb") as fh:
            head = fh.read(size)
            fh.seek(max(0, self.size - size))
            return head, fh.read(size)

    def commit(self, folder: Path | None = None) -> Path:
        """Put the body in place, under its name in ``folder`` (default: the one it was made for)."""
        folder = folder or self.folder
        target = folder / self.name
        with _writing(folder):
            self._fh.flush()
            os.fsync(self._fh.fileno())
            self._fh.close()
            folder.mkdir(parents=True, exist_ok=True)
            os.replace(self.tmp, target)
        fsync_dir(folder)
        return target

    def discard(self) -> None:
        if not self._fh.closed:
            with contextlib.suppress(OSError):  # bytes a full disk left in the buffer: discarded anyway
                self._fh.close()
        try:
            self.tmp.unlink()
        except FileNotFoundError:
            pass


class RunWriter:
    """Writes one run. Create it, ``save`` each response, then ``finish`` or ``fail``.

    Large bodies (bulk files) go through ``body_file`` then ``save_file``, never whole in memory;
    a 304 answer reuses an earlier run's body through ``save_reused``.
    """

    def __init__(self, store: "RawStore", run_id: str, meta: dict):
        if not RUN_ID_RE.match(run_id):
            raise ValueError(f"bad run id {run_id!r}")
        self.run_id = run_id
        self.path = store.root / run_id
        self.path.mkdir(parents=True, exist_ok=False)
        self.meta = {"run_id": run_id, "started_at": utc_now_iso(), **meta}
        try:
            atomic_write(self.path / RUN_META, _json_bytes(self.meta))
            self._manifest = open(self.path / MANIFEST, "ab")
        except BaseException:  # a folder without its run.json is no run: none is left half made
            shutil.rmtree(self.path, ignore_errors=True)
            raise
        self._seq = 0
        self.entries: list[DocEntry] = []

    def save(self, response: Response, origin: str, kind: str, key: str | None = None,
             quarantined: str | None = None) -> DocEntry:
        self._seq += 1
        folder = "quarantine" if quarantined else f"docs/{origin}"
        name = _safe_name(self._seq, response.final_url, response.headers.get("content-type", ""))
        target = self.path / folder / name
        with _writing(self.path):
            target.parent.mkdir(parents=True, exist_ok=True)
            atomic_write(target, response.body)
        entry = DocEntry(
            doc_id=doc_id_for(response.url, response.body), origin=origin, kind=kind, key=key,
            url=response.url, final_url=response.final_url, status=response.status,
            headers=dict(sorted(response.headers.items())), fetched_at=response.fetched_at,
            sha256=hashlib.sha256(response.body).hexdigest(), bytes=len(response.body),
            path=f"{folder}/{name}", quarantined=quarantined)
        self._append(entry)
        if not quarantined:
            self.entries.append(entry)
        failpoint("during_extract")
        return entry

    def update_meta(self, changes: dict) -> None:
        """Amend run.json while the run is written (the plan a sync chose once it knew)."""
        self.meta = {**self.meta, **changes}
        with _writing(self.path):
            atomic_write(self.path / RUN_META, _json_bytes(self.meta))

    def body_file(self, origin: str, url: str, ext: str) -> BodyFile:
        """A file to stream a body into; hand it to ``save_file`` once complete."""
        self._seq += 1
        tail = url.split("?", 1)[0].rstrip("/").rsplit("/", 1)[-1] or "index"
        slug = _SLUG.sub("_", tail.split(".", 1)[0]).strip("._")[:60] or "doc"
        with _writing(self.path):
            return BodyFile(self.path / "docs" / origin, f"{self._seq:05d}-{slug}{ext}", url)

    def save_file(self, response: Response, body: BodyFile, origin: str, kind: str,
                  key: str | None = None, quarantined: str | None = None) -> DocEntry:
        """Record a streamed body (``response.body`` is empty; the bytes are in ``body``);
        ``quarantined``: the reason it was given up on, and it goes to ``quarantine/``."""
        target = body.commit(self.path / "quarantine" if quarantined else None)
        entry = DocEntry(
            doc_id=body.doc_id, origin=origin, kind=kind, key=key, url=response.url,
            final_url=response.final_url, status=response.status,
            headers=dict(sorted(response.headers.items())), fetched_at=response.fetched_at,
            sha256=body.sha256, bytes=body.size, path=target.relative_to(self.path).as_posix(),
            quarantined=quarantined)
        return self._record(entry)

    def save_reused(self, response: Response, previous: "RunInfo", old: DocEntry, origin: str, kind: str,
                    key: str | None = None) -> DocEntry:
        """Record a 304: the earlier run's body is linked into this run under a new name."""
        target = self._link(previous, old, origin)
        headers = {**old.headers, **response.headers}
        entry = DocEntry(
            doc_id=old.doc_id, origin=origin, kind=kind, key=key, url=response.url,
            final_url=response.final_url, status=response.status, headers=dict(sorted(headers.items())),
            fetched_at=response.fetched_at, sha256=old.sha256, bytes=old.bytes,
            path=target.relative_to(self.path).as_posix(), reused_from=f"{previous.run_id}/{old.path}")
        return self._record(entry)

    def save_carried(self, previous: "RunInfo", old: DocEntry, reason: str) -> DocEntry:
        """Record a page this run did not fetch (``reason``): its earlier copy ``old``, of the run
        ``previous``, is linked into this run and stands in for it, as it was fetched then."""
        target = self._link(previous, old, old.origin)
        return self._record(replace(old, path=target.relative_to(self.path).as_posix(),
                                    reused_from=f"{previous.run_id}/{old.path}", carried=reason))

    def _link(self, previous: "RunInfo", old: DocEntry, origin: str) -> Path:
        """Hard-link (or copy) the body of ``old``, an entry of the run ``previous``, into this run."""
        self._seq += 1
        name = f"{self._seq:05d}-{Path(old.path).name.split('-', 1)[-1]}"
        target = self.path / "docs" / origin / name
        source = (previous.path / old.path).resolve()
        if previous.path.resolve() not in source.parents:
            raise SourceDataError(f"manifest of {previous.run_id} points outside its run: {old.path}")
        with _writing(self.path):
            target.parent.mkdir(parents=True, exist_ok=True)
            try:
                os.link(source, target)
            except OSError:  # another file system, or no hard links: a copy
                tmp = target.with_name(f".{name}.tmp-{os.getpid()}")
                with _removed_on_error(tmp):
                    shutil.copyfile(source, tmp)
                    os.replace(tmp, target)
        return target

    def _record(self, entry: DocEntry) -> DocEntry:
        self._append(entry)
        if not entry.quarantined:
            self.entries.append(entry)
        return entry

    def _append(self, entry: DocEntry) -> None:
        line = json.dumps(asdict(entry), ensure_ascii=False, sort_keys=True).encode("utf-8") + b"\n"
        with _writing(self.path):
            self._manifest.write(line)
            self._manifest.flush()
            os.fsync(self._manifest.fileno())

    def finish(self, summary: dict) -> None:
        body = {"finished_at": utc_now_iso(), "documents": len(self.entries), **summary}
        with _writing(self.path):
            self._manifest.close()
            atomic_write(self.path / SUCCESS, _json_bytes(body))

    def fail(self, reason: str, status: str = "failed") -> None:
        """Mark the run failed (or aborted) when the disk lets us; a run left without the mark
        (a full disk) is incomplete, and never loaded either."""
        if not self._manifest.closed:
            with contextlib.suppress(OSError):  # a manifest line a full disk kept in the buffer is lost
                self._manifest.close()
        if (self.path / SUCCESS).exists():
            return
        try:
            # printable: a reason may quote a server's error text holding a lone surrogate
            atomic_write(self.path / FAILED, _json_bytes({"failed_at": utc_now_iso(), "status": status,
                                                          "reason": printable(reason)}))
        except OSError as exc:
            log.warning("run %s could not be marked %s (%s): it stays incomplete", self.run_id, status, exc)


def inode_usage(folders: list[Path]) -> dict[tuple[int, int], list[int]]:
    """The files under ``folders``, one entry per inode (a 304 hard-links a body into the next
    run): [links seen under the folders, links in all, size in bytes]. ``status`` and ``doctor``
    ask while a sync writes (a temporary file renamed between the listing and its size) or a prune
    deletes (a run folder renamed away): what is gone by then is not counted."""
    files: dict[tuple[int, int], list[int]] = {}
    for folder in folders:
        for parent, _, names in os.walk(folder):  # a folder gone meanwhile: skipped (no onerror)
            for name in names:
                try:
                    st = os.lstat(os.path.join(parent, name))
                except FileNotFoundError:
                    continue
                if stat.S_ISREG(st.st_mode):
                    files.setdefault((st.st_dev, st.st_ino), [0, st.st_nlink, st.st_size])[0] += 1
    return files


@dataclass(frozen=True)
class RunInfo:
    run_id: str
    path: Path
    meta: dict
    success: dict | None
    failure: dict | None
    # why run.json cannot be read (then ``meta`` is empty): the run's query, mode and sources are
    # unknown, so it is never loaded, and neither rebuilt nor pruned until someone repairs it
    damaged: str | None = None

    @property
    def status(self) -> str:
        if self.failure is not None:
            return self.failure.get("status", "failed")
        if self.damaged is not None:
            return "damaged"
        if self.success is not None:
            return "complete"
        return "incomplete"

    @property
    def complete(self) -> bool:
        """Finished fetching, not rejected, readable: the only runs that are ever loaded."""
        return self.success is not None and self.failure is None and self.damaged is None


def _read_json(path: Path) -> dict | None:
    try:
        return json.loads(path.read_text("utf-8"))
    except FileNotFoundError:
        return None
    except (OSError, ValueError):
        return {}


def read_run(path: Path) -> RunInfo:
    path = Path(path)
    damaged = None
    try:
        meta = json.loads((path / RUN_META).read_text("utf-8"))
    except FileNotFoundError:
        raise ConfigError(f"{path} is not a casefile run (no {RUN_META})") from None
    except (OSError, ValueError) as exc:
        meta, damaged = {}, f"its {RUN_META} cannot be read ({exc.__class__.__name__}: {exc})"
    if not isinstance(meta, dict):
        meta, damaged = {}, f"its {RUN_META} is not a JSON object"
    return RunInfo(run_id=meta.get("run_id") or path.name, path=path, meta=meta,
                   success=_read_json(path / SUCCESS), failure=_read_json(path / FAILED), damaged=damaged)


def mark_rejected(run: RunInfo, reason: str, status: str = "rejected") -> None:
    """A run that fetched everything but whose data is not to be loaded: never loaded again."""
    with _writing(run.path):
        atomic_write(run.path / FAILED, _json_bytes({"failed_at": utc_now_iso(), "status": status,
                                                     "reason": reason}))


def read_manifest(run: RunInfo, include_quarantined: bool = False) -> list[DocEntry]:
    """The manifest's entries. A complete run's manifest must be whole; else the tail is cut."""
    entries = []
    try:
        raw = (run.path / MANIFEST).read_bytes()
    except FileNotFoundError:
        if run.success is not None:  # every run writes one before its first document
            raise SourceDataError(f"{run.path / MANIFEST} is missing: the documents of the run "
                                  f"{run.run_id} cannot be read without it") from None
        return []
    lines = raw.split(b"\n")
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            entry = DocEntry.from_json(json.loads(line))
        except (ValueError, TypeError) as exc:
            if run.success is not None or number < len(lines) - 1:
                raise SourceDataError(f"{run.path / MANIFEST}:{number}: unreadable manifest line ({exc})") from None
            break  # the half-written last line of a run that was killed
        if entry.quarantined and not include_quarantined:
            continue
        entries.append(entry)
    return entries


def body_path(run: RunInfo, entry: DocEntry) -> Path:
    path = (run.path / entry.path).resolve()
    if run.path.resolve() not in path.parents:
        raise SourceDataError(f"manifest of {run.run_id} points outside its run: {entry.path}")
    return path


def read_body(run: RunInfo, entry: DocEntry) -> bytes:
    try:
        return body_path(run, entry).read_bytes()
    except FileNotFoundError:
        raise SourceDataError(f"{run.path / entry.path} is missing (the run's manifest lists it)") from None


# Files found to be the body fetched, by where they are and their stat: one process (a rebuild of
# many runs) hashes each once, and a write to the file (its size, mtime or ctime) checks it anew.
_UNCHANGED: set[tuple] = set()


def document_problem(run: RunInfo, entry: DocEntry) -> str | None:
    """Why the file of ``entry`` is not the body that was fetched (missing, or bytes that no
    longer match the manifest's sha256), or None when it is."""
    path = run.path / entry.path
    try:
        with open(path, "rb") as fh:  # streamed: a bulk file may be gigabytes
            st = os.fstat(fh.fileno())
            seen = (str(path), st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns, entry.sha256)
            if seen in _UNCHANGED:
                return None
            digest = hashlib.file_digest(fh, "sha256").hexdigest()
    except OSError:
        return f"{run.run_id}/{entry.path} is missing"
    if digest != entry.sha256:
        return f"{run.run_id}/{entry.path} does not match its manifest sha256 (changed after it was fetched)"
    _UNCHANGED.add(seen)
    return None


@dataclass(frozen=True)
class EarlierPages:
    """What earlier runs got of the rulings pages (``RawStore.earlier_pages``)."""
    # the newest answer (any status) for each page asked, by origin and key (the card's Oracle
    # id; the query, for the wiki's page): (its run, its manifest entry)
    newest: dict[tuple[str, str | None], tuple[RunInfo, DocEntry]]
    # the pages, by origin and key, that some run got (200)
    found: frozenset[tuple[str, str | None]] = frozenset()


class RawStore:
    def __init__(self, root: Path):
        self.root = Path(root)

    def new_run(self, meta: dict, run_id: str | None = None) -> RunWriter:
        with _writing(self.root):
            self.root.mkdir(parents=True, exist_ok=True)
            return RunWriter(self, run_id or self._next_run_id(), meta)

    def _next_run_id(self) -> str:
        """The clock's time, or just after the newest run's id when the clock is behind it (set
        back, or a restored snapshot): run ids order the runs, and a rebuild replays them in
        that order, so a new run must come last or the rebuild would let older data win."""
        candidate = new_run_id()
        newest = max((child.name for child in self.root.iterdir() if RUN_ID_RE.match(child.name)), default=None)
        if newest is None or newest < candidate:
            return candidate
        after = datetime.strptime(newest, RUN_ID_FORMAT).replace(tzinfo=timezone.utc) + timedelta(microseconds=1)
        log.warning("the clock (%s) is not after the newest run in %s (%s); the new run takes the id %s",
                    candidate, self.root, newest, new_run_id(after))
        return new_run_id(after)

    def runs(self) -> list[RunInfo]:
        """Every run folder, oldest first. Folders that are not runs (``sample``) are left out."""
        if not self.root.is_dir():
            return []
        found = []
        for child in sorted(self.root.iterdir()):
            if child.is_dir() and RUN_ID_RE.match(child.name) and (child / RUN_META).exists():
                try:
                    run = read_run(child)
                except ConfigError:  # its run.json went since: a prune renamed the folder away
                    continue
                if run.damaged is None and run.run_id != child.name:  # a run folder copied in by hand
                    run = replace(run, run_id=child.name, damaged=f"its {RUN_META} names the run "
                                  f"{run.meta.get('run_id')!r}, not {child.name}, the name of its folder")
                found.append(run)
        return found

    def complete_runs(self) -> list[RunInfo]:
        return [run for run in self.runs() if run.complete]

    def iter_documents(self, run: RunInfo) -> Iterator[tuple[DocEntry, bytes]]:
        for entry in read_manifest(run):
            yield entry, read_body(run, entry)

    def latest_entry(self, url: str, origin: str, kind: str) -> tuple[RunInfo, DocEntry] | None:
        """The newest complete run's document fetched from ``url`` (a conditional GET's validators)."""
        for run in reversed(self.complete_runs()):
            for entry in reversed(read_manifest(run)):
                if entry.url == url and entry.origin == origin and entry.kind == kind and entry.status in (200, 304):
                    if (run.path / entry.path).is_file():
                        return run, entry
        return None

    def earlier_pages(self) -> EarlierPages:
        """What the complete runs got of the rulings pages: the newest answer for each page, and
        the pages that ever answered with the page."""
        newest: dict[tuple[str, str | None], tuple[RunInfo, DocEntry]] = {}
        found: set[tuple[str, str | None]] = set()
        for run in reversed(self.complete_runs()):
            try:
                entries = read_manifest(run)
            except (SourceDataError, OSError) as exc:  # doctor says so; its pages are not looked at
                log.warning("the manifest of run %s cannot be read (%s): its pages are not looked at", run.run_id, exc)
                continue
            for entry in reversed(entries):
                if entry.kind == "page":
                    newest.setdefault((entry.origin, entry.key), (run, entry))
                    if entry.status == 200:
                        found.add((entry.origin, entry.key))
        return EarlierPages(newest, frozenset(found))

    def delete_run(self, run: RunInfo) -> None:
        """Delete a run folder (``casefile prune``). It is renamed out of the store's view first, so
        a crash leaves the whole run or none of it; what a crash left is removed by
        ``finish_deletions``."""
        trash = self.root / f"{DELETING}{run.path.name}"
        os.replace(run.path, trash)
        fsync_dir(self.root)
        failpoint("during_prune")
        shutil.rmtree(trash)

    def finish_deletions(self) -> int:
        """Remove the folders a deletion renamed and did not finish; returns how many."""
        if not self.root.is_dir():
            return 0
        left = [p for p in self.root.iterdir() if p.name.startswith(DELETING) and p.is_dir()]
        for path in left:
            shutil.rmtree(path)
        return len(left)
