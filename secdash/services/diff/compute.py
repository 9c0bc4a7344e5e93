"""The line diff of two texts a user or a model wrote, computed in a bounded worker.

The engine is git's own (`git diff --no-index`, Myers with git's cost heuristics, written in C): two ~300 KB pages
with every other line changed take it about 10 ms, where Python's difflib took 6-30 s (and held the server that
long when it ran in the server's process). Without git on the machine, difflib does the work. Either way every
diff runs in a worker of core/bounded.py within DIFF_SECONDS; one that does not finish is refused as too large to
compare (`TooLarge`), never left to stop the server. The engine's unified text is read with unidiff into the rows
of diff/rows.py. The answer is capped too: at most `max_rows` rows and the unified text of those rows only.
"""

from __future__ import annotations

import difflib
import os
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

from unidiff import PatchSet

from secdash.core import bounded
from secdash.core.config import get_settings
from secdash.core.files import make_private_dir
from secdash.services.diff.rows import DIFF_ROWS, DiffRow, hunk_rows
from secdash.services.errors import Invalid, Unavailable

DIFF_SECONDS = 10.0


class TooLarge(Invalid):
    """The two texts could not be compared within the budget."""


@dataclass(frozen=True)
class LineDiff:
    added: int  # lines added in all (not only in the rows kept)
    removed: int
    unified: str  # `git apply`-style text: the headers and the rows kept
    rows: tuple[DiffRow, ...]  # hunk, context, removed and added rows (diff/rows.py)
    truncated: bool  # more rows than `max_rows`


def _git_diff(git: str, before: str, after: str, context: int) -> str:
    """The unified text of `git diff --no-index` of the two texts, with no configuration of the machine's or a
    user's applied (no external diff, no text conversion, no pager)."""
    scratch = get_settings().scratch_dir  # the data directory's, never the system's shared temp directory
    make_private_dir(scratch)
    with tempfile.TemporaryDirectory(prefix="diff-", dir=scratch) as folder:
        Path(folder, "a").write_bytes(before.encode("utf-8", errors="replace"))
        Path(folder, "b").write_bytes(after.encode("utf-8", errors="replace"))
        environment = {
            "PATH": os.environ.get("PATH", os.defpath),
            "HOME": folder,
            "GIT_CONFIG_NOSYSTEM": "1",
            "GIT_CONFIG_GLOBAL": os.devnull,
            "LC_ALL": "C",
        }
        result = subprocess.run(  # noqa: S603 (git, fixed arguments, our own temporary files)
            [
                git,
                "diff",
                "--no-index",
                "--no-color",
                "--no-ext-diff",
                "--no-textconv",
                "--text",
                "--diff-algorithm=myers",
                f"--unified={context}",
                "a",
                "b",
            ],
            cwd=folder,
            env=environment,
            capture_output=True,
            check=False,
            stdin=subprocess.DEVNULL,
        )
    if result.returncode not in (0, 1):
        raise RuntimeError(f"git diff failed: {result.stderr.decode(errors='replace')[:200]}")
    return result.stdout.decode("utf-8", errors="replace")


def _lines_for_git(text: str) -> str:
    """Lines as difflib's `splitlines` sees them: CR LF and a lone CR end a line, and the last line's end does not
    count (a page whose only change is a newline at its end is unchanged, as before)."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    return text if not text or text.endswith("\n") else text + "\n"


def _unified(before: str, after: str, context: int) -> str:
    git = shutil.which("git")
    if git is not None:
        return _git_diff(git, _lines_for_git(before), _lines_for_git(after), context)
    lines = difflib.unified_diff(before.splitlines(), after.splitlines(), "a", "b", lineterm="", n=context)
    return "\n".join(lines) + "\n"


def compute(before: str, after: str, from_name: str, to_name: str, context: int, max_rows: int) -> LineDiff:
    """The diff itself (runs in a worker)."""
    rows: list[DiffRow] = []
    added = removed = total = 0
    for patched in PatchSet(_unified(before, after, context)):  # one file (none when the lines are the same)
        added, removed = added + patched.added, removed + patched.removed
        for hunk in patched:
            for row in hunk_rows(hunk):
                total += 1
                if len(rows) < max_rows:
                    rows.append(row)
    kept = [f"--- {from_name}", f"+++ {to_name}", *(row.unified for row in rows)]
    return LineDiff(added=added, removed=removed, unified="\n".join(kept), rows=tuple(rows), truncated=total > max_rows)


async def line_diff(
    before: str,
    after: str,
    *,
    from_name: str = "a",
    to_name: str = "b",
    context: int = 3,
    max_rows: int = DIFF_ROWS,
    owner: int | None = None,
) -> LineDiff:
    """`compute` in a bounded worker (`owner`: the user it is for, who has a share of the workers of their own).
    Raises TooLarge when it runs out of its budget, Unavailable when the workers, or the user's share, are busy."""
    if before == after:
        return LineDiff(added=0, removed=0, unified="", rows=(), truncated=False)
    try:
        return await bounded.run(
            bounded.CODE, DIFF_SECONDS, compute, before, after, from_name, to_name, context, max_rows, owner=owner
        )
    except bounded.BudgetExceeded:
        raise TooLarge(
            f"{from_name} and {to_name} are too large to compare (the comparison did not finish within {DIFF_SECONDS:g} s)"
        ) from None
    except bounded.Busy as exc:
        whose = "your earlier comparisons" if exc.yours else "other comparisons"
        raise Unavailable(f"The server is busy with {whose}; compare {from_name} and {to_name} again in a moment") from None
