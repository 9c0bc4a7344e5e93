"""The demo sites' own response headers: a `headers.json` file in each site's code root.

Each site's folder is `sources/<slug>/`, or the same folder in the demo sources' Fix Mode workspace once that
workspace exists (`code_roots.source_of`): the sites then serve the fixed pages and the fixed headers, and a
re-probe sees what a fix changed. The file is one JSON object {header name: value}; `parse_headers` is the
one check of its content (Fix Mode validates a proposed change with it before writing it).
"""

from __future__ import annotations

import json
import logging
import os
import re
from pathlib import Path

from secdash.services import code_roots

log = logging.getLogger(__name__)

HEADERS_FILE = "headers.json"
MAX_HEADERS = 30
MAX_NAME_LENGTH = 64
MAX_VALUE_LENGTH = 2000
# RFC 7230 section 3.2.6: token = 1*tchar
_TOKEN = re.compile(r"[!#$%&'*+\-.^_`|~0-9A-Za-z]+")
# Set by the server for each response: a site's file must not override them (it would break the answers).
SERVER_HEADERS = frozenset({
    "connection", "content-encoding", "content-length", "content-type", "keep-alive", "te", "trailer",
    "transfer-encoding", "upgrade",
})

# slug -> (the file's stamp: path, inode, mtime_ns, size; or the path alone when it is missing), its headers
_cache: dict[str, tuple[tuple, dict[str, str]]] = {}


class _Pairs(list):
    """A JSON object's (name, value) pairs, in order (duplicate names kept, to be refused)."""


def site_folder(slug: str) -> Path:
    """The folder a demo site serves: its folder in the demo sources' workspace when there is one."""
    if slug not in code_roots.DEMO_SLUGS:
        raise ValueError(f"unknown demo site: {slug!r}")
    return code_roots.source_of(code_roots.DEMO_SOURCES) / slug


def parse_headers(text: str) -> dict[str, str]:
    """The headers a file's text sets; ValueError saying what is wrong unless it is a JSON object of at most
    MAX_HEADERS entries, each a header name (an RFC 7230 token) with a single-line string value."""
    try:
        data = json.loads(text, object_pairs_hook=_Pairs)
    except (json.JSONDecodeError, RecursionError) as exc:
        raise ValueError(f"{HEADERS_FILE} is not valid JSON: {exc}") from None
    if not isinstance(data, _Pairs):
        raise ValueError(f"{HEADERS_FILE} must be a JSON object of header names to values")
    if len(data) > MAX_HEADERS:
        raise ValueError(f"{HEADERS_FILE} sets {len(data)} headers; at most {MAX_HEADERS} are allowed")
    headers: dict[str, str] = {}
    seen: set[str] = set()
    for name, value in data:
        if not _TOKEN.fullmatch(name) or len(name) > MAX_NAME_LENGTH:
            raise ValueError(f"{name[:80]!r} is not a header name (letters, digits and !#$%&'*+-.^_`|~, "
                             f"at most {MAX_NAME_LENGTH} characters)")
        if name.lower() in seen:
            raise ValueError(f"the header {name} is set twice")
        if name.lower() in SERVER_HEADERS:
            raise ValueError(f"the header {name} is set by the server, not by the site")
        seen.add(name.lower())
        if not isinstance(value, str):
            raise ValueError(f"the value of {name} must be a string")
        if len(value) > MAX_VALUE_LENGTH:
            raise ValueError(f"the value of {name} is {len(value)} characters long; at most {MAX_VALUE_LENGTH}")
        if any(char in value for char in "\r\n\0"):
            raise ValueError(f"the value of {name} must be one line (no CR, LF or NUL)")
        if any((ord(char) < 32 and char != "\t") or ord(char) == 127 or ord(char) > 255 for char in value):
            raise ValueError(f"the value of {name} holds a control character or a character HTTP cannot send")
        headers[name] = value
    return headers


def render_headers(headers: dict[str, str]) -> str:
    """The file's canonical text."""
    return json.dumps(headers, indent=2) + "\n"


def headers_of(slug: str) -> dict[str, str]:
    """The headers the site sends, from its file (parsed again only when the file changed). A missing or
    invalid file sends none: the site keeps serving, and the warning is logged once per change of the file."""
    path = site_folder(slug) / HEADERS_FILE
    try:
        info = os.stat(path)
        stamp: tuple = (str(path), info.st_ino, info.st_mtime_ns, info.st_size)
    except OSError:
        stamp = (str(path),)
    cached = _cache.get(slug)
    if cached is not None and cached[0] == stamp:
        return dict(cached[1])
    headers: dict[str, str] = {}
    if len(stamp) == 1:
        log.warning("demo site %s: %s is missing; the site sends no headers of its own", slug, path)
    else:
        try:
            headers = parse_headers(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, ValueError) as exc:
            log.warning("demo site %s: %s is not used (%s); the site sends no headers of its own", slug, path, exc)
    _cache[slug] = (stamp, headers)
    return dict(headers)
