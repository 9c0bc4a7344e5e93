"""The one line diff: two texts a user or a model wrote, compared line by line in a bounded worker.

difflib's matcher can take far longer than linear on large or repetitive texts, and a diff of two ~300 KB pages
held the server 30-50 s when it ran in the server's process. Here every diff runs in a worker of core/bounded.py
within DIFF_SECONDS; one that does not finish is refused as too large to compare (`TooLarge`), never left to
stop the server. The answer is capped too: at most `max_rows` rows and the unified text of those rows only.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass

from secdash.core import bounded
from secdash.services.errors import Invalid, Unavailable

DIFF_SECONDS = 10.0
DIFF_ROWS = 2000  # rows of a diff kept; beyond them the diff is cut (`truncated`)
_HUNK = re.compile(r"^@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@")


class TooLarge(Invalid):
    """The two texts could not be compared within the budget."""


@dataclass(frozen=True)
class DiffRow:
    kind: str  # "hunk" | "added" | "removed" | "context"
    text: str  # the line without its +/-/space mark (a hunk row: the whole @@ line)
    old_line: int | None
    new_line: int | None


@dataclass(frozen=True)
class LineDiff:
    added: int  # lines added in all (not only in the rows kept)
    removed: int
    unified: str  # `git apply`-style text: the headers and the rows kept
    rows: tuple[DiffRow, ...]
    truncated: bool


def compute(before: str, after: str, from_name: str, to_name: str, context: int, max_rows: int) -> LineDiff:
    """The diff itself (pure; runs in a worker)."""
    added = removed = old = new = 0
    rows: list[DiffRow] = []
    kept: list[str] = []
    total = 0
    for line in difflib.unified_diff(before.splitlines(), after.splitlines(), from_name, to_name, lineterm="",
                                     n=context):
        if line.startswith(("---", "+++")) and total == 0 and not rows:
            kept.append(line)
            continue
        total += 1
        if hunk := _HUNK.match(line):
            old, new = int(hunk.group(1)), int(hunk.group(2))
            row = DiffRow("hunk", line, None, None)
        elif line.startswith("+"):
            added += 1
            row = DiffRow("added", line[1:], None, new)
            new += 1
        elif line.startswith("-"):
            removed += 1
            row = DiffRow("removed", line[1:], old, None)
            old += 1
        else:
            row = DiffRow("context", line[1:], old, new)
            old, new = old + 1, new + 1
        if len(rows) < max_rows:
            rows.append(row)
            kept.append(line)
    return LineDiff(added=added, removed=removed, unified="\n".join(kept), rows=tuple(rows), truncated=total > max_rows)


async def line_diff(before: str, after: str, *, from_name: str = "a", to_name: str = "b", context: int = 3,
                    max_rows: int = DIFF_ROWS) -> LineDiff:
    """`compute` in a bounded worker. Raises TooLarge when it runs out of its budget, Unavailable when every worker
    is busy."""
    if before == after:
        return LineDiff(added=0, removed=0, unified="", rows=(), truncated=False)
    try:
        return await bounded.run(bounded.CODE, DIFF_SECONDS, compute, before, after, from_name, to_name, context,
                                 max_rows)
    except bounded.BudgetExceeded:
        raise TooLarge(f"{from_name} and {to_name} are too large to compare (the comparison did not finish within "
                       f"{DIFF_SECONDS:g} s)") from None
    except bounded.Busy:
        raise Unavailable(f"The server is busy comparing other files; compare {from_name} and {to_name} again in "
                          "a moment") from None
