"""The headers.json format: a site's own response headers as one JSON object {header name: value}.

The bundled demo sites send what their file says (secdash/demo_sites/site_headers.py), and Fix Mode writes a site
fix into it; `parse_headers` is the one check of its content, used by both. The demo sites are served from the
console's own origin, so a file may set only the security policies of `ALLOWED_HEADERS` (the headers a site fix may
set): never Set-Cookie (a planted `secdash_session` cookie would replace a visitor's console session),
Clear-Site-Data, redirects, caching, CORS or origin-wide policies (Alt-Svc, NEL).
"""

from __future__ import annotations

import json
import re

HEADERS_FILE = "headers.json"
MAX_HEADERS = 30
MAX_NAME_LENGTH = 64
MAX_VALUE_LENGTH = 2000
# RFC 7230 section 3.2.6: token = 1*tchar
_TOKEN = re.compile(r"[!#$%&'*+\-.^_`|~0-9A-Za-z]+")
# Set by the server for each response: a site's file must not override them (it would break the answers).
SERVER_HEADERS = frozenset(
    {
        "connection",
        "content-encoding",
        "content-length",
        "content-type",
        "keep-alive",
        "te",
        "trailer",
        "transfer-encoding",
        "upgrade",
    }
)

# The headers a site's file may set, and a site fix may change (services/fix/site_fixes.py): security policies only.
ALLOWED_HEADERS = {
    "content-security-policy": "Content-Security-Policy",
    "strict-transport-security": "Strict-Transport-Security",
    "x-frame-options": "X-Frame-Options",
    "x-content-type-options": "X-Content-Type-Options",
    "referrer-policy": "Referrer-Policy",
    "permissions-policy": "Permissions-Policy",
    "cross-origin-opener-policy": "Cross-Origin-Opener-Policy",
    "cross-origin-resource-policy": "Cross-Origin-Resource-Policy",
    "cross-origin-embedder-policy": "Cross-Origin-Embedder-Policy",
}


def is_headers_file(path: str) -> bool:
    """Whether `path` (relative, with "/") names a site's header configuration, in any folder, in any case."""
    return path.rsplit("/", 1)[-1].lower() == HEADERS_FILE


class _Pairs(list):
    """A JSON object's (name, value) pairs, in order (duplicate names kept, to be refused)."""


def parse_headers(text: str) -> dict[str, str]:
    """The headers a file's text sets; ValueError saying what is wrong unless it is a JSON object of at most
    MAX_HEADERS entries, each an allowed header name (`ALLOWED_HEADERS`) with a single-line string value."""
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
            raise ValueError(
                f"{name[:80]!r} is not a header name (letters, digits and !#$%&'*+-.^_`|~, at most {MAX_NAME_LENGTH} characters)"
            )
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
        if name.lower() not in ALLOWED_HEADERS:
            raise ValueError(
                f"{name} is not a header a site may send from {HEADERS_FILE} (allowed: {', '.join(ALLOWED_HEADERS.values())})"
            )
        headers[name] = value
    return headers


def render_headers(headers: dict[str, str]) -> str:
    """The file's canonical text."""
    return json.dumps(headers, indent=2) + "\n"
