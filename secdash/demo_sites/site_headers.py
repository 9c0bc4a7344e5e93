"""The demo sites' own response headers: a `headers.json` file in each site's code root.

Each site's folder is `sources/<slug>/`, or the same folder in the demo sources' Fix Mode workspace once that
workspace exists (`code_roots.source_of`): the sites then serve the fixed pages and the fixed headers, and a
re-probe sees what a fix changed. The file is one JSON object {header name: value}; `parse_headers` is the
one check of its content (Fix Mode validates a proposed change with it before writing it).
"""

from __future__ import annotations

import logging
import os
from pathlib import Path

from secdash.services.monitoring.headers_file import HEADERS_FILE, parse_headers
from secdash.services.scanning import code_roots

log = logging.getLogger(__name__)

# slug -> (the file's stamp: path, inode, mtime_ns, size; or the path alone when it is missing), its headers
_cache: dict[str, tuple[tuple, dict[str, str]]] = {}


def site_folder(slug: str) -> Path:
    """The folder a demo site serves: its folder in the demo sources' workspace when there is one."""
    if slug not in code_roots.DEMO_SLUGS:
        raise ValueError(f"unknown demo site: {slug!r}")
    return code_roots.source_of(code_roots.DEMO_SOURCES) / slug


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
