"""The one row type of a diff, read from unified diff text with unidiff, and the side-by-side view made from it.

Pure text in, rows out (nothing is read or run). A unified row is a file's path, a hunk header, a context line, a
removed or an added line (or a note). The side-by-side view pairs, inside a hunk, a run of removed lines with the
run of added lines after it, row by row: a pair is a "changed" row, with the old line on its left and the new one
on its right; unchanged lines show on both sides. The "no newline at end of file" marker belongs to the line
before it and is not a row. unidiff follows the hunk headers' line counts, so a removed line whose text starts
with "-- " is not taken for a file header.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Iterator

from unidiff import Hunk, PatchSet
from unidiff.constants import LINE_TYPE_ADDED, LINE_TYPE_CONTEXT, LINE_TYPE_REMOVED
from unidiff.errors import UnidiffParseError

DIFF_ROWS = 2000  # rows of a diff kept; beyond them the diff is cut
CUT_NOTE = "The diff is longer than this table: read it whole in the unified view."
HEADINGS = ("file", "hunk", "note")
_KINDS = {LINE_TYPE_CONTEXT: "context", LINE_TYPE_REMOVED: "removed", LINE_TYPE_ADDED: "added"}
_MARKS = {"context": " ", "removed": "-", "added": "+"}


@dataclasses.dataclass
class DiffRow:
    """One row of a diff. `kind`: "file" (its path), "hunk" (its header) or "note" (a word about the diff), their
    text in `new_text`; "context" (both sides), "removed" (the old side only), "added" (the new side only) or, in
    the side-by-side view only, "changed" (a removed line beside the added line that replaces it). A side a row
    does not have is empty: no line number, no text."""

    kind: str = "context"
    old_line: int | None = None
    new_line: int | None = None
    old_text: str = ""
    new_text: str = ""

    @classmethod
    def line(cls, kind: str, text: str, old_line: int | None = None, new_line: int | None = None) -> DiffRow:
        """A unified row from its one text (the old side's for a removed line, else the new side's)."""
        if kind == "removed":
            return cls(kind, old_line, None, text, "")
        if kind == "context":
            return cls(kind, old_line, new_line, text, text)
        return cls(kind, None if kind in HEADINGS else old_line, new_line, "", text)

    @property
    def text(self) -> str:
        """The row's text in a unified view (without its +/-/space mark)."""
        return self.old_text if self.kind == "removed" else self.new_text

    @property
    def unified(self) -> str:
        """The row as a line of unified diff text (a hunk row: its header)."""
        return _MARKS[self.kind] + self.text if self.kind in _MARKS else self.text


def hunk_header(hunk: Hunk) -> str:
    """The hunk's "@@" line as git and difflib write it (a length of 1 is left out)."""

    def side(mark: str, start: int, length: int) -> str:
        return f"{mark}{start}" if length == 1 else f"{mark}{start},{length}"

    header = f"@@ {side('-', hunk.source_start, hunk.source_length)} {side('+', hunk.target_start, hunk.target_length)} @@"
    return f"{header} {hunk.section_header}" if hunk.section_header else header


def _text(value: str) -> str:
    """A diff line's text without its line ending."""
    return value[:-1] if value.endswith("\n") else value


def hunk_rows(hunk: Hunk) -> Iterator[DiffRow]:
    """The hunk's header row, then one row per line (the "no newline" markers left out)."""
    yield DiffRow.line("hunk", hunk_header(hunk))
    for line in hunk:
        kind = _KINDS.get(line.line_type)
        if kind is not None:
            yield DiffRow.line(kind, _text(line.value), line.source_line_no, line.target_line_no)


def parse(text: str) -> list[DiffRow]:
    """The unified rows of a diff text: per file its path, then its hunks ([] for a text that is not a diff; one
    note row for a diff that cannot be read). Windows line endings are read as "\\n" (they are not shown)."""
    try:
        patch = PatchSet(text.replace("\r\n", "\n"))
    except UnidiffParseError as exc:
        return [DiffRow.line("note", f"The diff could not be read: {exc}.")]
    rows: list[DiffRow] = []
    for patched in patch:
        rows.append(DiffRow.line("file", patched.path))
        for hunk in patched:
            rows.extend(hunk_rows(hunk))
    return rows


def side_by_side(rows: Iterable[DiffRow], max_rows: int = DIFF_ROWS) -> list[DiffRow]:
    """The side-by-side view of unified rows: runs of removed and added lines paired; past `max_rows` rows the
    view is cut, with a note row."""
    out: list[DiffRow] = []
    removed: list[DiffRow] = []
    added: list[DiffRow] = []

    def flush() -> None:
        for index in range(max(len(removed), len(added))):
            if index >= len(added):
                out.append(removed[index])
            elif index >= len(removed):
                out.append(added[index])
            else:
                old, new = removed[index], added[index]
                out.append(DiffRow("changed", old.old_line, new.new_line, old.old_text, new.new_text))
        removed.clear()
        added.clear()

    for row in rows:
        if row.kind == "removed":
            if added:  # a removal after additions starts a new change
                flush()
            removed.append(row)
        elif row.kind == "added":
            added.append(row)
        else:
            flush()
            out.append(row)
    flush()
    if len(out) > max_rows:
        out = [*out[:max_rows], DiffRow.line("note", CUT_NOTE)]
    return out
