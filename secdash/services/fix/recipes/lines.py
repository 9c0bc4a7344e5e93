"""Reading and rewriting one line of a file, and what kind of file it is (the recipes' shared helpers)."""

from __future__ import annotations

import re
from pathlib import PurePosixPath

from secdash.services.code_scan import Finding
from secdash.services.diff.patch import split_lines

PY_SUFFIXES = {".py", ".pyw"}
JS_SUFFIXES = {".js", ".mjs", ".cjs", ".jsx", ".ts", ".tsx"}
STRING = re.compile(r"""(?P<q>["'])(?P<body>(?:\\.|(?!(?P=q)).)*)(?P=q)""")


def line_at(text: str, number: int) -> tuple[list[str], str, str] | None:
    """(all lines, the line's content, its ending) for a 1-based line number."""
    lines = split_lines(text)
    if not 0 < number <= len(lines):
        return None
    line = lines[number - 1]
    content = line.rstrip("\r\n")
    return lines, content, line[len(content) :]


def replace_line(lines: list[str], number: int, content: str, ending: str) -> str:
    lines = list(lines)
    lines[number - 1] = content + ending
    return "".join(lines)


def suffix_of(finding: Finding) -> str:
    return PurePosixPath(finding.file).suffix.lower()
