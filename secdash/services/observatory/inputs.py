"""What the grader reads: one fetched response (scheme, headers, body), its site and its http redirect chain.

Headers are (name, value) pairs as received. Like an HTTP client (and the reference's), a header sent several times
reads as one value joined with ", " (Set-Cookie stays a list; Content-Type keeps its first value).
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import cache
from html.parser import HTMLParser
from typing import cast

HTML_TYPES = frozenset({"text/html", "application/xhtml+xml"})
FIRST_VALUE_ONLY = frozenset({"content-type"})  # a client keeps the first of these and drops the others
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.\-]*:")
_SPECIAL = frozenset({"http", "https", "ws", "wss", "ftp", "file"})


@dataclass(frozen=True)
class Hop:
    """One request of the redirect chain: its URL and the status it answered."""

    url: str
    status: int


@dataclass(frozen=True)
class Exchange:
    """The input of a grade.

    scheme: "https" when the final response came over HTTPS (the site answers on HTTPS), "http" when the site was
        fetched over plain HTTP (it is then graded as a site without HTTPS, as the reference does).
    headers: the final response's headers, in order, repeated names included.
    body: the response body (HTML: `<meta http-equiv>` policies, scripts for Subresource Integrity), or None.
    host, path: the site's host name (cookie domains, script origins) and path; None when unknown (a file).
    http_redirects: the chain of a fetch that began at the site's http:// URL, final answer included; None when
        unknown: an https site is then taken to redirect http to https on its own host, an http site not to redirect.
    origin_sent: the Origin a CORS request sent, when one was made (an answer that echoes it with credentials
        gives universal access); None: no such request.
    http_verified: False when the fetch of http_redirects only went through with certificate checks off (the
        reference's session retries that way after a certificate error: redirection-invalid-cert).
    cors_headers: the headers of the answer to that CORS request (the reference's preflight OPTIONS), () when it
        was sent and not answered; None: the CORS test reads `headers`.
    preloaded: host -> includeSubDomains of HSTS preload entries to use instead of Chromium's list (the one the
        hstspreload package ships); None: that list.
    certificate_valid: False when the HTTPS answer came only with certificate checks off.
    """

    headers: tuple[tuple[str, str], ...] = ()
    scheme: str = "https"
    body: str | None = None
    host: str | None = None
    path: str = "/"
    http_redirects: tuple[Hop, ...] | None = None
    origin_sent: str | None = None
    cors_headers: tuple[tuple[str, str], ...] | None = None
    http_verified: bool = True
    preloaded: Mapping[str, bool] | None = None
    certificate_valid: bool = True

    @property
    def https(self) -> bool:
        return self.scheme == "https"

    def values(self, name: str) -> list[str]:
        """The header's values as a client reads them: [] when absent, else one joined value (Set-Cookie: each)."""
        name = name.lower()
        found = [value for key, value in self.headers if key.strip().lower() == name]
        if not found or name == "set-cookie":
            return found
        return [found[0]] if name in FIRST_VALUE_ONLY else [", ".join(found)]

    def first(self, name: str) -> str | None:
        values = self.values(name)
        return values[0] if values else None

    @property
    def is_html(self) -> bool:
        return (self.first("content-type") or "").split(";")[0] in HTML_TYPES

    @property
    def page(self) -> Page:
        return scan_html(self.body or "")

    def equiv(self) -> dict[str, list[str]]:
        """The `<meta http-equiv>` policies the reference reads (only from an HTML answer with a body)."""
        if not (self.is_html and self.body):
            return {"content-security-policy": []}
        return self.page.equiv


def headers_from(headers: Mapping[str, str] | Iterable[tuple[str, str]] | object) -> tuple[tuple[str, str], ...]:
    """(name, value) pairs from an httpx.Headers (multi-valued kept), a mapping, or pairs."""
    multi = getattr(headers, "multi_items", None)
    if callable(multi):
        return tuple((str(k), str(v)) for k, v in multi())
    if isinstance(headers, Mapping):
        pairs: list[tuple[str, str]] = []
        for key, value in headers.items():
            values = value if isinstance(value, list | tuple) else [value]
            pairs.extend((str(key), str(v)) for v in values)
        return tuple(pairs)
    pairs_given = cast("Iterable[tuple[str, str]]", headers)  # neither headers nor a mapping: the pairs of the contract
    return tuple((str(k), str(v)) for k, v in pairs_given)


# --- the page ---------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Script:
    src: str | None  # the attribute (None: no src attribute)
    integrity: str | None


@dataclass(frozen=True)
class Page:
    scripts: tuple[Script, ...]
    equiv: dict[str, list[str]]


class _Collector(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.scripts: list[Script] = []
        self.equiv: dict[str, list[str]] = {"content-security-policy": []}

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        first: dict[str, str] = {}
        for key, value in attrs:  # the first of a repeated attribute wins, as in a browser
            first.setdefault(key, value or "")
        if tag == "script":
            self.scripts.append(Script(first.get("src"), first.get("integrity")))
        elif tag == "meta":
            if "http-equiv" in first and "content" in first:
                if first["content"] and first["http-equiv"].strip().lower() == "content-security-policy":
                    self.equiv["content-security-policy"].append(first["content"])
            elif first.get("name", "").strip().lower() == "referrer" and first.get("content"):
                self.equiv["referrer-policy"] = [first["content"]]  # a later one replaces it

    handle_startendtag = handle_starttag


@cache
def scan_html(body: str) -> Page:
    """The scripts and the `<meta>` policies of a page (a lenient HTML parse, like a browser's)."""
    collector = _Collector()
    collector.feed(body)
    collector.close()
    return Page(tuple(collector.scripts), collector.equiv)


# --- URLs and domains ----------------------------------------------------------------------------------------


def absolute_url(value: str) -> tuple[str, str] | None:
    """(scheme, host) when the value is an absolute URL a browser would resolve on its own, else None."""
    value = (
        value.strip(
            "\x00\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a\x0b\x0c\x0d\x0e\x0f\x10\x11\x12\x13\x14\x15"
            "\x16\x17\x18\x19\x1a\x1b\x1c\x1d\x1e\x1f "
        )
        .replace("\t", "")
        .replace("\n", "")
        .replace("\r", "")
    )
    match = _SCHEME.match(value)
    if match is None:
        return None
    scheme = match.group(0)[:-1].lower()
    rest = value[match.end() :]
    if scheme not in _SPECIAL:
        return scheme, ""
    rest = rest.lstrip("/\\")
    authority = re.split(r"[/?#\\]", rest, maxsplit=1)[0]
    host = authority.rsplit("@", 1)[-1]
    if host.startswith("["):
        host = host.split("]", 1)[0] + "]"
    else:
        host = host.split(":", 1)[0]
    return scheme, host.lower().rstrip(".")


@cache
def _suffixes(private: bool):
    from publicsuffixlist import PublicSuffixList

    return PublicSuffixList(only_icann=not private)


def _is_ip(host: str) -> bool:
    try:
        ipaddress.ip_address(host.strip("[]"))
    except ValueError:
        return False
    return True


def registrable_domain(host: str | None, *, private: bool = False) -> str | None:
    """The host's registrable domain (eTLD+1; None for an IP address, a bare suffix or no host)."""
    if not host:
        return None
    host = host.lower().rstrip(".")
    if _is_ip(host):
        return None
    return _suffixes(private).privatesuffix(host)
