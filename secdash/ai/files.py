"""Multi-file answers: the text format a task asks for, and a streaming parser that turns it into
`FileStart` / `FileContent` / `FileEnd` events (text outside files stays `TextDelta`).

The format, one marker per line:

    === FILE: site/index.html ===
    <!doctype html> ...
    === END FILE ===

Both engines send their text through `FileStreamParser` when a task's output is files, so a
builder sees the same events whichever engine answered. Markers split across stream chunks are
recognised (a line that may still become a marker is held back until it is complete). A path must
be relative, without `..`, backslashes or control characters, at most `MAX_PATH` characters; a
marker with any other path is kept as plain text, never followed.
"""

from __future__ import annotations

import re

from secdash.ai.base import Event, FileContent, FileEnd, FileStart, TextDelta

START_PREFIX = "=== FILE: "
END_MARKER = "=== END FILE ==="
MAX_PATH = 200
FORMAT_INSTRUCTIONS = (
    f"Write each file as a line `{START_PREFIX}<relative/path> ===`, then its content, then a line `{END_MARKER}`. "
    "Nothing else may appear on a marker line."
)
_START = re.compile(r"^=== FILE: (?P<path>.+?) ===[ \t]*\r?\n?$")
_END = re.compile(r"^=== END FILE ===[ \t]*\r?\n?$")
_PATH_PART = re.compile(r"^[A-Za-z0-9._-]+$")


def safe_path(path: str) -> str | None:
    """The path if it is a safe relative path (see the module docstring), else None."""
    path = path.strip()
    if not path or len(path) > MAX_PATH or path.startswith("/"):
        return None
    parts = path.split("/")
    if any(part in ("", ".", "..") or not _PATH_PART.match(part) for part in parts):
        return None
    return path


def file_block(path: str, content: str) -> str:
    """One file in the format (for offline answers and tests)."""
    body = content if content.endswith("\n") or not content else content + "\n"
    return f"{START_PREFIX}{path} ===\n{body}{END_MARKER}\n"


class FileStreamParser:
    """Feed text as it arrives; get events. Call `close()` at the end of the stream."""

    def __init__(self) -> None:
        self._pending = ""  # the start of a line that may still become a marker
        self._at_line_start = True
        self._path: str | None = None

    def _text(self, text: str) -> list[Event]:
        if not text:
            return []
        return [FileContent(self._path, text) if self._path is not None else TextDelta(text)]

    def _may_be_marker(self, partial: str) -> bool:
        for marker in (START_PREFIX, END_MARKER):
            if marker.startswith(partial) or partial.startswith(marker):
                return True
        return False

    def _line(self, line: str) -> list[Event]:
        """A complete line (ending in a newline) that began at a line start."""
        if self._path is None:
            start = _START.match(line)
            if start and (path := safe_path(start.group("path"))):
                self._path = path
                return [FileStart(path)]
        elif _END.match(line):
            path, self._path = self._path, None
            return [FileEnd(path)]
        return self._text(line)

    def feed(self, text: str) -> list[Event]:
        events: list[Event] = []
        while text:
            if not self._at_line_start:
                head, newline, text = text.partition("\n")
                events += self._text(head + newline)
                self._at_line_start = bool(newline)
                continue
            buffered = self._pending + text
            head, newline, rest = buffered.partition("\n")
            if newline:
                self._pending = ""
                events += self._line(head + newline)
                text = rest
                continue
            if self._may_be_marker(buffered):
                self._pending = buffered  # wait for the rest of the line
            else:
                self._pending = ""
                events += self._text(buffered)
                self._at_line_start = False
            text = ""
        return events

    def close(self) -> list[Event]:
        """Flush what is held back; a file left open ends incomplete."""
        events: list[Event] = []
        if self._pending:
            pending, self._pending = self._pending, ""
            events += self._line(pending)
        if self._path is not None:
            events.append(FileEnd(self._path, complete=False))
            self._path = None
        return events
