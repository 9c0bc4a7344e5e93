"""Which files a fix may change. A code fix: the flagged file, and for an HTML page the local scripts it loads (a
handler moved out of the markup goes into the page's own script file, where a Content-Security-Policy with
`script-src 'self'` still lets it run). Never a site's header configuration (`headers.json`: only a site fix, held to
the allowed headers, changes it; a page that loads it as a script does not make it one of the page's files) and
never a file that tools run by themselves (secdash/ai/files.py `tool_file_reason`). A site fix: its headers file."""

from __future__ import annotations

import posixpath
import re
from pathlib import Path, PurePosixPath

from secdash.ai.files import tool_file_reason
from secdash.models.fixes import FixKind
from secdash.services.fix.patches import PatchRefused
from secdash.services.monitoring.headers_file import is_headers_file

HTML_SUFFIXES = {".html", ".htm"}
# The attributes before src hold no '<', and the search stops at the text's last '>' (page_scripts): a search from
# each '<script' that cannot end would read the rest of the page again (quadratic in a model-written page).
_SCRIPT_SRC = re.compile(r"""<script\b[^<>]*?\bsrc\s*=\s*["']([^"'#?]+)["'][^>]*>""", re.IGNORECASE)


def page_scripts(path: str, text: str) -> list[tuple[str, int]]:
    """(path relative to the code root, 1-based line of its tag) of each local script an HTML page loads."""
    if PurePosixPath(path).suffix.lower() not in HTML_SUFFIXES:
        return []
    base = PurePosixPath(path).parent.as_posix()
    found = []
    for match in _SCRIPT_SRC.finditer(text, 0, text.rfind(">") + 1):
        src = match.group(1).strip()
        if not src or ":" in src or src.startswith(("/", "\\")) or "\\" in src:
            continue  # another origin, an absolute path or a scheme: not a file of this code root
        joined = posixpath.normpath(posixpath.join(base, src))
        if joined == ".." or joined.startswith("../") or joined.startswith("/"):
            continue
        found.append((joined, text.count("\n", 0, match.start()) + 1))
    return found


def _code_may_change(path: str) -> bool:
    return not is_headers_file(path) and tool_file_reason(path) is None


def allowed_files(root: Path, path: str, *, kind: FixKind = FixKind.code) -> set[str]:
    """The files a fix of a finding in `path` may change (paths relative to `root`); PatchRefused when a code fix
    names a headers file or a tool's file."""
    if kind == FixKind.site:
        return {path}
    if not _code_may_change(path):
        raise PatchRefused(
            f"{path} is a site's header configuration or a tool's file: a code fix never changes it "
            "(a header finding is fixed as a site fix, held to the allowed security headers)"
        )
    try:
        text = (root / path).read_text(errors="replace")
    except OSError:
        return {path}
    return {
        path,
        *(script for script, _line in page_scripts(path, text) if _code_may_change(script) and (root / script).is_file()),
    }
