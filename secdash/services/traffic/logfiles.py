"""Reading access logs: plain or gzip files (by their first bytes), or standard input, line by line, and a tally
of the lines that could not be read (counted, with the first few kept to show the user)."""

from __future__ import annotations

import gzip
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import BinaryIO

from secdash.services.traffic.logformats import LineError, Request, parse_line

GZIP_MAGIC = b"\x1f\x8b"
KEPT_SAMPLES = 3
SAMPLE_CHARS = 160


@dataclass
class Tally:
    """How many lines were read and how many were not requests, with examples."""

    lines: int = 0
    unreadable: int = 0
    samples: list[str] = field(default_factory=list)

    def refuse(self, where: str, line: str, reason: str) -> None:
        self.unreadable += 1
        if len(self.samples) < KEPT_SAMPLES:
            text = line.rstrip("\r\n")
            shown = text[:SAMPLE_CHARS] + ("…" if len(text) > SAMPLE_CHARS else "")
            self.samples.append(f"{where}: {reason}: {shown!r}")

    def summary(self) -> str:
        """'12 of 10,000 lines could not be read: …' (or that every line was read)."""
        if not self.unreadable:
            return f"{self.lines:,} lines read"
        return f"{self.unreadable:,} of {self.lines:,} lines could not be read: " + "; ".join(self.samples)

    def as_json(self) -> dict[str, object]:
        return {"lines": self.lines, "unreadable": self.unreadable, "samples": list(self.samples)}


def _open(path: str) -> BinaryIO:
    if path == "-":
        return sys.stdin.buffer
    raw = open(path, "rb")  # noqa: SIM115 - closed by the caller's context
    if raw.peek(2)[:2] == GZIP_MAGIC:
        raw.close()  # gzip.open's file is closed with it (GzipFile(fileobj=...) would leave the file open)
        return gzip.open(path, "rb")  # type: ignore[return-value]
    return raw


def read_requests(path: str, tally: Tally, log_format: str = "auto") -> Iterator[Request]:
    """The requests of one log file (gzip or not; '-' is standard input), in file order; bad lines go to tally.
    OSError (and gzip's BadGzipFile) reach the caller."""
    stream = _open(path)
    try:
        for number, raw in enumerate(stream, start=1):
            tally.lines += 1
            line = raw.decode("utf-8", errors="replace")
            try:
                yield parse_line(line, log_format)
            except LineError as exc:
                tally.refuse(f"{path}:{number}", line, str(exc))
    finally:
        if stream is not sys.stdin.buffer:
            stream.close()
