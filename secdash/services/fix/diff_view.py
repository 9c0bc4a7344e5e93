"""A unified diff as the rows of a side-by-side table: old lines on the left, new lines on the right.

Pure text in, rows out (nothing is read or run). Inside a hunk, a run of removed lines and the run of added lines
after it are paired row by row (a changed line shows old and new beside each other); unchanged lines show on both
sides; the "no newline at end of file" marker belongs to the line before it and is not a row. The hunk headers'
line counts say where a hunk ends, so a removed line whose text starts with "-- " is not taken for a file header.
"""

from __future__ import annotations

import dataclasses
import re

MAX_ROWS = 2000  # a fix's diff is small (patches.MAX_PATCH_BYTES); more rows are cut, with a final note row
_HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")


@dataclasses.dataclass
class DiffRow:
    """One table row. `kind`: "file" (a file's path in `new_text`), "hunk" (the hunk header in `new_text`),
    "line" (old and new cells) or "note". A cell's kind: context, removed, added, or empty (no line on that side)."""

    kind: str = "line"
    old_number: str = ""
    old_text: str = ""
    old_kind: str = "empty"
    new_number: str = ""
    new_text: str = ""
    new_kind: str = "empty"


def _path(header: str) -> str:
    path = header[4:].split("\t", 1)[0].strip()
    return path[2:] if path.startswith(("a/", "b/")) else path


class _Rows:
    def __init__(self) -> None:
        self.rows: list[DiffRow] = []
        self.removed: list[tuple[int, str]] = []
        self.added: list[tuple[int, str]] = []

    def flush(self) -> None:
        """Pair the pending removed and added runs, row by row."""
        for index in range(max(len(self.removed), len(self.added))):
            row = DiffRow()
            if index < len(self.removed):
                number, text = self.removed[index]
                row.old_number, row.old_text, row.old_kind = str(number), text, "removed"
            if index < len(self.added):
                number, text = self.added[index]
                row.new_number, row.new_text, row.new_kind = str(number), text, "added"
            self.rows.append(row)
        self.removed, self.added = [], []


def side_by_side(diff: str) -> list[DiffRow]:
    """The side-by-side rows of a unified diff ([] for an empty text)."""
    out = _Rows()
    old_no = new_no = old_left = new_left = 0
    for line in diff.replace("\r\n", "\n").split("\n"):
        if old_left > 0 or new_left > 0:  # inside a hunk
            if line.startswith("\\"):
                continue
            if line.startswith("-"):
                if out.added:  # a removal after additions starts a new change
                    out.flush()
                out.removed.append((old_no, line[1:]))
                old_no, old_left = old_no + 1, old_left - 1
            elif line.startswith("+"):
                out.added.append((new_no, line[1:]))
                new_no, new_left = new_no + 1, new_left - 1
            else:  # context (an empty line is a context line whose leading space was stripped)
                out.flush()
                text = line[1:]
                out.rows.append(
                    DiffRow(
                        old_number=str(old_no),
                        old_text=text,
                        old_kind="context",
                        new_number=str(new_no),
                        new_text=text,
                        new_kind="context",
                    )
                )
                old_no, new_no, old_left, new_left = old_no + 1, new_no + 1, old_left - 1, new_left - 1
            continue
        out.flush()
        hunk = _HUNK.match(line)
        if hunk:
            old_no, new_no = int(hunk.group(1)), int(hunk.group(3))
            old_left = int(hunk.group(2)) if hunk.group(2) is not None else 1
            new_left = int(hunk.group(4)) if hunk.group(4) is not None else 1
            out.rows.append(DiffRow(kind="hunk", new_text=line))
        elif line.startswith("+++ "):
            out.rows.append(DiffRow(kind="file", new_text=_path(line)))
    out.flush()
    if len(out.rows) > MAX_ROWS:
        out.rows = out.rows[:MAX_ROWS]
        out.rows.append(DiffRow(kind="note", new_text="The diff is longer than this table: read it whole in the unified view."))
    return out.rows
