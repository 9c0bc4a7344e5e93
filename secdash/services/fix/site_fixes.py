"""Site fixes: the response headers that answer a monitor's header finding, validated before anyone reviews them.

A site fix is a change of security headers ({"headers": {name: value}}). For the bundled demo sites SecDash serves
the headers from `<slug>/headers.json` in their code root, so the same change is also a diff of that file, written
to the workspace like a code fix (and reverted the same way). For any other site the admin applies the change on
their own server and SecDash verifies it with a probe.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from secdash.services.errors import Invalid
from secdash.services.monitoring import headers_file

HEADERS_FILE = headers_file.HEADERS_FILE
MAX_HEADERS = 10
MAX_VALUE_CHARS = 2000
# The headers a fix may set: security policies only (never Set-Cookie, Location, caching or CORS); the same list a
# site's headers file is held to.
ALLOWED_HEADERS = headers_file.ALLOWED_HEADERS
_PENALTY = re.compile(r"\s*\(-\d+\)\s*$")


@dataclass(frozen=True)
class HeaderRecipe:
    match: str  # the start of the monitor's finding text (services/monitoring/header_grade.py)
    headers: dict[str, str]
    explanation: str
    risk: str


RECIPES = (
    HeaderRecipe(
        "Content-Security-Policy header missing",
        {"Content-Security-Policy": "default-src 'self'; frame-ancestors 'none'; object-src 'none'; base-uri 'self'"},
        "Sends a Content-Security-Policy that lets the page load scripts, styles and images from its own origin "
        "only, forbids plugins and framing by other sites.",
        "Inline scripts and inline event handlers (onclick=...) stop running, and resources from other origins "
        "(CDNs, analytics) are blocked: move inline code into files and list any other origin you need.",
    ),
    HeaderRecipe(
        "Strict-Transport-Security",
        {"Strict-Transport-Security": "max-age=63072000; includeSubDomains"},
        "Tells browsers to use HTTPS only for two years, on this host and its subdomains.",
        "A subdomain that still serves plain HTTP becomes unreachable for visitors who saw the header; removing it "
        "later takes up to two years to expire in browsers.",
    ),
    HeaderRecipe(
        "X-Frame-Options header missing",
        {"X-Frame-Options": "DENY"},
        "Forbids other sites (and this one) from showing the pages in a frame, which stops clickjacking.",
        "Pages that are meant to be embedded (widgets, previews) can no longer be framed anywhere.",
    ),
    HeaderRecipe(
        "X-Content-Type-Options",
        {"X-Content-Type-Options": "nosniff"},
        "Stops browsers from guessing content types, so an upload cannot be run as a script.",
        "Files served with a wrong Content-Type (a script as text/plain) stop loading.",
    ),
    HeaderRecipe(
        "Referrer-Policy",
        {"Referrer-Policy": "strict-origin-when-cross-origin"},
        "Sends only the origin, not the full address, to other sites, and nothing from HTTPS to HTTP.",
        "Analytics on other sites see the origin only, not which page a visitor came from.",
    ),
)


def finding_text(finding: str) -> str:
    """The monitor's finding without its penalty ("X-Frame-Options header missing (-20)" -> "... missing")."""
    return _PENALTY.sub("", finding or "")


def recipe_for(finding: str) -> HeaderRecipe | None:
    """The offline recipe for a header finding, or None (cookie flags and unsafe-inline need code changes)."""
    text = finding_text(finding)
    return next((recipe for recipe in RECIPES if text.startswith(recipe.match)), None)


def validate_headers(value: object) -> dict[str, str]:
    """The headers a proposal sets, with canonical names; Invalid with the reason otherwise."""
    if not isinstance(value, dict) or not value:
        raise Invalid("headers must be a non-empty object {header name: value}")
    if len(value) > MAX_HEADERS:
        raise Invalid(f"headers may set at most {MAX_HEADERS} headers")
    headers: dict[str, str] = {}
    for name, text in value.items():
        canonical = ALLOWED_HEADERS.get(str(name).strip().lower())
        if canonical is None:
            raise Invalid(
                f"{str(name)[:64]!r} is not a security header a fix may set (allowed: {', '.join(ALLOWED_HEADERS.values())})"
            )
        if not isinstance(text, str) or not text.strip():
            raise Invalid(f"{canonical} needs a non-empty text value")
        if len(text) > MAX_VALUE_CHARS or any(ch in text for ch in "\r\n\0"):
            raise Invalid(f"{canonical}: a value is one line of at most {MAX_VALUE_CHARS} characters")
        headers[canonical] = text.strip()
    return headers


def parse_headers_file(text: str) -> dict[str, str]:
    """A site's headers file as {name: value}; Invalid saying what is wrong with it."""
    try:
        return headers_file.parse_headers(text)
    except ValueError as exc:
        raise Invalid(str(exc)) from None


def render_headers_file(headers: dict[str, str]) -> str:
    """The file's text with these headers, checked as the demo sites will read it."""
    text = headers_file.render_headers(headers)
    parse_headers_file(text)
    return text


def merged(current: dict[str, str], change: dict[str, str]) -> dict[str, str]:
    """The site's headers with the change applied (a header already sent under another case is replaced)."""
    lowered = {name.lower() for name in change}
    return {name: value for name, value in current.items() if name.lower() not in lowered} | change
