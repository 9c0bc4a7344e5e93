"""The exact patch of one file's change: what Fix Mode proposes, reviews, downloads and applies (`git apply`,
`patch -p1`). Unlike `compute` (a view of two texts, lines normalised), every byte counts here: line endings are
kept and a last line without a newline is marked."""

from __future__ import annotations

import difflib

NO_NEWLINE_MARKER = "\\ No newline at end of file\n"


def split_lines(text: str) -> list[str]:
    """Lines split on "\\n" only, each keeping its ending ("\\r\\n" stays whole; a last line may have none).

    `str.splitlines` also splits on form feeds, "\\r" alone and Unicode separators, which a diff does not.
    """
    parts = text.split("\n")
    lines = [part + "\n" for part in parts[:-1]]
    if parts[-1]:
        lines.append(parts[-1])
    return lines


def unified_diff(path: str, before: str, after: str) -> str:
    """A unified diff of one file with a/ and b/ prefixes (what `git apply` and `patch -p1` expect).

    difflib leaves a last line without newline unmarked; the "\\ No newline at end of file" marker is added so the
    diff says exactly which bytes change.
    """
    body = []
    for line in difflib.unified_diff(split_lines(before), split_lines(after), f"a/{path}", f"b/{path}"):
        body.append(line)
        if not line.endswith("\n"):
            body.append("\n" + NO_NEWLINE_MARKER)
    return "".join(body)
