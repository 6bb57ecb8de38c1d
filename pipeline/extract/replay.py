"""Offline transport: answers requests from a recorded run instead of the network.

Used by ``casefile sync --offline``. Each URL is answered with the response recorded for it,
headers, status and bytes included; a URL the recording does not hold is an error, so an
offline run can never quietly differ from the live run it stands for.
"""

from __future__ import annotations

from ..errors import UsageError
from ..wire import Response
from ..rawstore import RunInfo, body_path, read_body, read_manifest


class ReplayTransport:
    def __init__(self, run: RunInfo):
        self.run = run
        self._by_url = {}
        for entry in read_manifest(run):
            self._by_url.setdefault(entry.url, entry)
        self.requests = 0
        self.bytes = 0

    def get(self, url: str, **_ignored) -> Response:
        entry = self._by_url.get(url)
        if entry is None:
            raise UsageError(f"the recorded run {self.run.path} holds no response for {url}; "
                             "an offline sync can only replay what was recorded (same query and options)")
        body = read_body(self.run, entry)
        self.requests += 1
        self.bytes += len(body)
        return Response(url=entry.url, final_url=entry.final_url, status=entry.status,
                        headers=dict(entry.headers), body=body, fetched_at=entry.fetched_at)

    def download(self, url: str, sink, *, validators=None, **_ignored) -> Response:
        """A bulk file of the recording, linked into the new run (not read again)."""
        entry = self._by_url.get(url)
        if entry is None:
            raise UsageError(f"the recorded run {self.run.path} holds no response for {url}; "
                             "an offline sync can only replay what was recorded (same query and options)")
        self.requests += 1
        if entry.status == 200 or entry.reused_from:
            sink.adopt(body_path(self.run, entry), entry.sha256, entry.doc_id, entry.bytes)
            self.bytes += entry.bytes
        status = 200 if entry.status == 304 else entry.status
        return Response(url=entry.url, final_url=entry.final_url, status=status, headers=dict(entry.headers),
                        body=b"", fetched_at=entry.fetched_at)
