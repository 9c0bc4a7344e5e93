"""Cookies: the reference's cookies test, with cookies parsed and kept the way its cookie jar keeps them.

A cookie whose name holds "login" or "sess" is a session cookie, one whose name holds "csrf" an anti-CSRF token
(case-insensitive). The worst finding wins: a session cookie without Secure (-40) or HttpOnly (-30) is charged more
than an ordinary cookie without Secure (-20, or -5 when HSTS protects it); a SameSite attribute whose value is not
Strict, Lax or None, or SameSite=None without Secure, is invalid (-20). A cookie the jar refuses (no name, a Domain
that is a public suffix or another site's, a __Secure-/__Host- prefix whose rules it breaks) is not counted, but its
SameSite value is still read from the raw header.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from secdash.services.observatory.inputs import Exchange, registrable_domain

IGNORED = frozenset({"heroku-session-affinity"})
CONTROL = re.compile(r"[\x00-\x1f]")
SPECIAL_USE = ("local", "example", "invalid", "localhost", "test")
# Worst last: a finding replaces the current one only when it is worse.
ORDER = (
    "cookies-without-secure-flag-but-protected-by-hsts",
    "cookies-without-secure-flag",
    "cookies-session-without-secure-flag-but-protected-by-hsts",
    "cookies-samesite-flag-invalid",
    "cookies-anticsrf-without-samesite-flag",
    "cookies-session-without-httponly-flag",
    "cookies-session-without-secure-flag",
)


@dataclass
class Cookie:
    name: str
    secure: bool = False
    http_only: bool = False
    same_site: str | None = None  # strict, lax or none; None when absent or not one of those
    domain: str | None = None
    path: str | None = None


def parse_cookie(text: str) -> Cookie | None:
    """One Set-Cookie value (RFC 6265 section 5.2, strict about the name); None when it has no name."""
    text = text.strip()
    pair, _, rest = text.partition(";")
    for terminator in ("\n", "\r", "\0"):
        pair = pair.split(terminator, 1)[0]
    equals = pair.find("=")
    if equals <= 0:
        return None
    name, value = pair[:equals].strip(), pair[equals + 1 :].strip()
    if CONTROL.search(name) or CONTROL.search(value):
        return None
    cookie = Cookie(name)
    if not rest.strip():
        return cookie
    for attribute in rest.split(";"):
        attribute = attribute.strip()
        if not attribute:
            continue
        key, has_value, raw = attribute.partition("=")
        key, raw = key.strip().lower(), raw.strip() if has_value else ""
        if key == "domain" and raw:
            domain = raw.strip().removeprefix(".")
            if domain:
                cookie.domain = domain.lower()
        elif key == "path":
            cookie.path = raw if raw.startswith("/") else None
        elif key == "secure":
            cookie.secure = True
        elif key == "httponly":
            cookie.http_only = True
        elif key == "samesite":
            cookie.same_site = raw.lower() if raw.lower() in ("strict", "lax", "none") else None
    return cookie


def _public_suffix(domain: str) -> bool:
    """A Domain attribute no cookie may be set on (a public suffix; RFC 6761 names are allowed as in the jar)."""
    labels = domain.split(".")
    if labels[-1] in SPECIAL_USE and (len(labels) > 1 or labels[-1] in ("localhost", "invalid")):
        return False
    return registrable_domain(domain, private=True) is None and ":" not in domain


def _domain_match(host: str, domain: str) -> bool:
    if host == domain:
        return True
    return host.endswith("." + domain) and not re.fullmatch(r"[\d.]+|[0-9a-f:]+", host)


def _default_path(path: str) -> str:
    if not path.startswith("/") or path.count("/") <= 1:
        return "/"
    return path[: path.rfind("/")]


def jar(exchange: Exchange) -> list[Cookie]:
    """The cookies a client keeps from the response (one per domain, path and name: the last one set)."""
    host = (exchange.host or "").lower() or None
    kept: dict[tuple[str | None, str, str], Cookie] = {}
    for text in exchange.values("set-cookie"):
        cookie = parse_cookie(text)
        if cookie is None:
            continue
        host_only = cookie.domain is None
        if cookie.domain is not None:
            if _public_suffix(cookie.domain):
                continue
            if host is not None and not _domain_match(host, cookie.domain):
                continue
        path = cookie.path if cookie.path else _default_path(exchange.path or "/")
        if cookie.name.startswith("__Secure-") and not cookie.secure:
            continue
        if cookie.name.startswith("__Host-") and not (cookie.secure and host_only and path == "/"):
            continue
        kept[(cookie.domain or host, path, cookie.name)] = cookie
    return [cookie for cookie in kept.values() if cookie.name not in IGNORED]


def raw_same_site_invalid(text: str) -> bool:
    """A SameSite attribute in the raw header with no value or one other than Lax, Strict or None."""
    for part in text.strip().split(";"):
        key, *rest = part.strip().split("=")
        value = rest[0] if rest else None
        if key.strip().lower() == "samesite" and (not value or value.strip().lower() not in ("lax", "strict", "none")):
            return True
    return False


def _worse(new: str, old: str | None) -> str:
    return new if old is None or ORDER.index(new) > ORDER.index(old) else old


def cookies_test(exchange: Exchange, *, hsts_passed: bool) -> tuple[str, bool]:
    """(result, pass) of the cookies test; `hsts_passed` is whether the site's HSTS test passed."""
    result: str | None = None
    for text in exchange.values("set-cookie"):
        if raw_same_site_invalid(text):
            result = _worse("cookies-samesite-flag-invalid", result)
    cookies = jar(exchange)
    if not cookies:
        return "cookies-not-found", True
    missing_same_site = False
    for cookie in cookies:
        name = cookie.name.lower()
        session = "login" in name or "sess" in name
        anti_csrf = "csrf" in name
        if not cookie.secure and cookie.same_site == "none":
            result = _worse("cookies-samesite-flag-invalid", result)
        if not cookie.secure:
            result = _worse(
                "cookies-without-secure-flag-but-protected-by-hsts" if hsts_passed else "cookies-without-secure-flag", result
            )
        if anti_csrf and not cookie.same_site:
            result = _worse("cookies-anticsrf-without-samesite-flag", result)
        if session and not cookie.secure:
            result = _worse(
                "cookies-session-without-secure-flag-but-protected-by-hsts"
                if hsts_passed
                else "cookies-session-without-secure-flag",
                result,
            )
        if session and not cookie.http_only:
            result = _worse("cookies-session-without-httponly-flag", result)
        missing_same_site = missing_same_site or not cookie.same_site
    if result is None:
        result = (
            "cookies-secure-with-httponly-sessions" if missing_same_site else "cookies-secure-with-httponly-sessions-and-samesite"
        )
    passed = result in ("cookies-secure-with-httponly-sessions", "cookies-secure-with-httponly-sessions-and-samesite")
    return result, passed
