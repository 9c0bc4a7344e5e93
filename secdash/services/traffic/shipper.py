"""The log shipper (`python -m secdash ship`): follows access-log files and posts their new lines to SecDash's
ingest endpoint with the site's ingest token.

- It reads complete lines only (a line still being written waits), at most one batch at a time: the files on disk
  are the buffer, so memory stays bounded however long SecDash is unreachable.
- A cursor per file (its inode and the offset shipped) is written after each accepted batch (a temporary file
  renamed over the old one), so a restart neither loses nor repeats lines.
- Rotation: a file renamed away (logrotate's default) is read to its end before the new file is started, also
  when the rename happened while the shipper was stopped (the old file is found by its inode beside the new one);
  a file truncated in place (copytruncate) is read again from its start.
- Failures: a refused token (401) stops the shipper with the server's message; a batch too large (413) is split;
  other errors and an unreachable server are retried with exponential back-off (1 s doubling to 60 s).
"""

from __future__ import annotations

import asyncio
import gzip
import json
import logging
import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import httpx

log = logging.getLogger(__name__)

BATCH_LINES = 5_000
BATCH_BYTES = 4 * 1024 * 1024
MAX_LINE_BYTES = 16_384  # a longer line is cut here (the server refuses longer ones as unreadable anyway)
BACKOFF_FIRST, BACKOFF_MAX = 1.0, 60.0
DRAIN_SECONDS = 60.0


class ShipperStopped(Exception):
    """The server refused the token: shipping cannot go on (the message says why)."""


@dataclass
class FileCursor:
    inode: int = 0
    offset: int = 0
    # After a rename, the old file is still read for DRAIN_SECONDS: logrotate may create the new file before the
    # server reopens its log, and the lines written in between go to the old one.
    old_inode: int = 0
    old_offset: int = 0
    old_until: float = 0.0


@dataclass
class Shipper:
    url: str  # SecDash's base URL
    token: str
    paths: list[Path]
    state_file: Path
    client: httpx.AsyncClient
    batch_lines: int = BATCH_LINES
    sleep: Callable[[float], Any] = asyncio.sleep
    cursors: dict[str, FileCursor] = field(default_factory=dict)
    shipped: int = 0  # lines accepted by the server since start

    def load(self) -> None:
        try:
            stored = json.loads(self.state_file.read_text())
        except (OSError, ValueError):
            stored = {}
        self.cursors = {path: FileCursor(**value) for path, value in stored.items() if isinstance(value, dict)}

    def _save(self) -> None:
        temporary = self.state_file.with_suffix(".tmp")
        temporary.write_text(json.dumps({path: vars(cursor) for path, cursor in self.cursors.items()}))
        os.replace(temporary, self.state_file)

    def _rotated_file(self, path: Path, inode: int) -> Path | None:
        """The file the cursor's inode now lives in, beside path (path.1, path-2026...), if it is still there."""
        for candidate in sorted(path.parent.glob(path.name + "*")):
            try:
                if candidate != path and candidate.stat().st_ino == inode:
                    return candidate
            except OSError:
                continue
        return None

    def _read(self, path: Path, cursor: FileCursor, limit: int) -> tuple[list[bytes], int]:
        """Up to `limit` complete lines of the file from the cursor, and the offset after them."""
        lines: list[bytes] = []
        offset = cursor.offset
        size = 0
        with open(path, "rb") as stream:
            stream.seek(offset)
            while len(lines) < limit and size < BATCH_BYTES:
                line = stream.readline()
                if not line.endswith(b"\n"):
                    break  # end of file, or a line still being written
                offset += len(line)
                size += len(line)
                lines.append(line[:MAX_LINE_BYTES].rstrip(b"\r\n"))
        return lines, offset

    def next_batch(self) -> tuple[str, Path, list[bytes], FileCursor] | None:
        """The next lines to send: (cursor key, file read, lines, the cursor once they are accepted)."""
        for path in self.paths:
            key = str(path)
            try:
                stat = path.stat()
            except OSError:
                continue  # not there (yet): rotation in progress, or a path that appears later
            cursor = self.cursors.setdefault(key, FileCursor(inode=stat.st_ino, offset=0))
            if cursor.inode != stat.st_ino:  # renamed away: the old file is finished (and drained a while)
                cursor = FileCursor(stat.st_ino, 0, cursor.inode, cursor.offset, time.time() + DRAIN_SECONDS)
                self.cursors[key] = cursor
            elif stat.st_size < cursor.offset:  # truncated in place (copytruncate)
                self.cursors[key] = cursor = replace(cursor, offset=0)
            if cursor.old_inode and cursor.old_until > time.time():
                old = self._rotated_file(path, cursor.old_inode)
                if old is not None:
                    lines, offset = self._read(old, FileCursor(cursor.old_inode, cursor.old_offset), self.batch_lines)
                    if lines:
                        return key, old, lines, replace(cursor, old_offset=offset)
            lines, offset = self._read(path, cursor, self.batch_lines)
            if lines:
                return key, path, lines, replace(cursor, offset=offset)
        return None

    async def _post(self, lines: list[bytes]) -> None:
        """Send one batch until the server takes it (a 413 splits it in two)."""
        delay = BACKOFF_FIRST
        while True:
            try:
                answer = await self.client.post(
                    self.url.rstrip("/") + "/api/traffic/ingest",
                    content=gzip.compress(b"\n".join(lines) + b"\n"),
                    headers={"Authorization": f"Bearer {self.token}", "Content-Encoding": "gzip", "Content-Type": "text/plain"},
                )
            except httpx.HTTPError as exc:
                log.warning("SecDash unreachable (%s); retrying in %.0f s", type(exc).__name__, delay)
            else:
                if answer.status_code == 200:
                    body = answer.json()
                    if body.get("unreadable"):
                        log.warning("%s", body.get("message", ""))
                    self.shipped += int(body.get("accepted", 0))
                    return
                if answer.status_code == 400:  # no line was a request: nothing to retry
                    log.warning("batch refused: %s", _message(answer))
                    return
                if answer.status_code == 401:
                    raise ShipperStopped(_message(answer))
                if answer.status_code == 413 and len(lines) > 1:
                    half = len(lines) // 2
                    await self._post(lines[:half])
                    await self._post(lines[half:])
                    return
                log.warning("SecDash answered %d (%s); retrying in %.0f s", answer.status_code, _message(answer), delay)
            await self.sleep(delay)
            delay = min(delay * 2, BACKOFF_MAX)

    async def ship_available(self) -> int:
        """Send everything complete in the files now; returns the lines sent."""
        sent = 0
        while (batch := self.next_batch()) is not None:
            key, _path, lines, after = batch
            await self._post(lines)
            self.cursors[key] = after
            self._save()
            sent += len(lines)
        return sent

    async def follow(self, poll_seconds: float = 1.0) -> None:
        """Ship forever: new lines as they are written, through rotations."""
        while True:
            if not await self.ship_available():
                await self.sleep(poll_seconds)


def _message(answer: httpx.Response) -> str:
    try:
        return str(answer.json().get("message", ""))[:300]
    except ValueError:
        return answer.text[:300]
