"""Which files a code fix may change: the flagged file, and for an HTML page the local scripts it loads (a
handler moved out of the markup goes into the page's own script file, where a Content-Security-Policy with
`script-src 'self'` still lets it run)."""

from __future__ import annotations

import posixpath
import re
from pathlib import Path, PurePosixPath

HTML_SUFFIXES = {".html", ".htm"}
_SCRIPT_SRC = re.compile(r"""<script\b[^>]*?\bsrc\s*=\s*["']([^"'#?]+)["'][^>]*>""", re.IGNORECASE)


def page_scripts(path: str, text: str) -> list[tuple[str, int]]:
    """(path relative to the code root, 1-based line of its tag) of each local script an HTML page loads."""
    if PurePosixPath(path).suffix.lower() not in HTML_SUFFIXES:
        return []
    base = PurePosixPath(path).parent.as_posix()
    found = []
    for match in _SCRIPT_SRC.finditer(text):
        src = match.group(1).strip()
        if not src or ":" in src or src.startswith(("/", "\\")) or "\\" in src:
            continue  # another origin, an absolute path or a scheme: not a file of this code root
        joined = posixpath.normpath(posixpath.join(base, src))
        if joined == ".." or joined.startswith("../") or joined.startswith("/"):
            continue
        found.append((joined, text.count("\n", 0, match.start()) + 1))
    return found


def allowed_files(root: Path, path: str) -> set[str]:
    """The files a fix of a finding in `path` may change (paths relative to `root`)."""
    try:
        text = (root / path).read_text(errors="replace")
    except OSError:
        return {path}
    return {path, *(script for script, _line in page_scripts(path, text) if (root / script).is_file())}
