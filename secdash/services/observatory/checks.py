"""The reference's header tests other than CSP and cookies: each returns (result, pass)."""

from __future__ import annotations

import math
import re

from secdash.services.observatory.inputs import Exchange, Hop, absolute_url, registrable_domain

SIX_MONTHS = 15552000  # the reference's "white lie" for 15768000
REFERRER_PRIVATE = ("no-referrer", "same-origin", "strict-origin", "strict-origin-when-cross-origin")
REFERRER_UNSAFE = ("origin", "origin-when-cross-origin", "unsafe-url", "no-referrer-when-downgrade")
_JS_SPACE = (
    " \t\n\v\f\r\u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029"
    "\u202f\u205f\u3000\ufeff"
)


def _js_int(text: str) -> float:
    """JavaScript's parseInt(text, 10): leading digits after optional space and sign; NaN when there are none."""
    match = re.match(r"([+-]?)(\d+)", text.lstrip(_JS_SPACE))
    if match is None:
        return math.nan
    return -int(match.group(2)) if match.group(1) == "-" else int(match.group(2))


def preloaded(exchange: Exchange, host: str | None) -> bool | None:
    """includeSubDomains of the host's HSTS preload entry (its own, or a parent's that covers subdomains), or None."""
    if not host:
        return None
    if exchange.preloaded is None:
        import hstspreload  # Chromium's preload list (force-https entries), shipped as a package

        return True if hstspreload.in_hsts_preload(host.lower().rstrip(".")) else None
    if host in exchange.preloaded:
        return exchange.preloaded[host]
    labels = host.split(".")
    for start in range(1, len(labels)):
        if exchange.preloaded.get(".".join(labels[start:])):
            return True
    return None


def hsts_test(exchange: Exchange) -> tuple[str, bool]:
    if not exchange.https:
        return "hsts-not-implemented-no-https", False
    result = "hsts-not-implemented"
    if not exchange.certificate_valid:
        result = "hsts-invalid-cert"
    elif exchange.values("strict-transport-security"):
        data = exchange.values("strict-transport-security")[0][:1024]
        max_age: float | None = None
        if "," not in data:  # a comma: the header was sent more than once
            for parameter in (part.strip().lower() for part in data.split(";")):
                if parameter.startswith("max-age="):
                    max_age = _js_int(parameter[8:128])
        if max_age is None:
            result = "hsts-header-invalid"
        else:  # NaN compares false: an unreadable number counts as long enough, as for the reference
            result = (
                "hsts-implemented-max-age-less-than-six-months"
                if max_age < SIX_MONTHS
                else "hsts-implemented-max-age-at-least-six-months"
            )
    if preloaded(exchange, exchange.host) is not None:
        result = "hsts-preloaded"
    return result, result in ("hsts-implemented-max-age-at-least-six-months", "hsts-preloaded")


def _chain(exchange: Exchange) -> tuple[Hop, ...]:
    if exchange.http_redirects is not None:
        return exchange.http_redirects
    host = exchange.host or "site.invalid"
    if exchange.https:  # unknown: taken to redirect http to https on its own host
        return Hop(f"http://{host}{exchange.path}", 301), Hop(f"https://{host}{exchange.path}", 200)
    return (Hop(f"http://{host}{exchange.path}", 200),)


def redirection_test(exchange: Exchange) -> tuple[str, bool]:
    route = _chain(exchange)
    if not route:
        return "redirection-not-needed-no-http", True
    parsed = [(absolute_url(hop.url) or ("", "")) for hop in route]
    if not exchange.http_verified or (not exchange.certificate_valid and any(scheme == "https" for scheme, _ in parsed)):
        return "redirection-invalid-cert", False
    if all(preloaded(exchange, host) is not None for _, host in parsed):
        result = "redirection-all-redirects-preloaded"
    elif len(route) == 1:
        result = "redirection-missing"
    elif parsed[-1][0] != "https":
        result = "redirection-not-to-https"
    elif parsed[1][0] == "http":
        result = "redirection-not-to-https-on-initial-redirection"
    elif parsed[0][0] == "http" and parsed[1][0] == "https" and parsed[0][1] != parsed[1][1]:
        result = "redirection-off-host-from-http"
    else:
        result = "redirection-to-https"
    return result, result in ("redirection-not-needed-no-http", "redirection-all-redirects-preloaded", "redirection-to-https")


def referrer_test(exchange: Exchange) -> tuple[str, bool]:
    http = exchange.values("referrer-policy")
    meta = exchange.equiv().get("referrer-policy", [])
    if not http and not meta:
        return "referrer-policy-not-implemented", True
    data = ", ".join([*http, *meta])  # a <meta name="referrer"> comes last, so it wins
    valid = [token.strip().lower() for token in data.split(",") if token.strip().lower() in REFERRER_PRIVATE + REFERRER_UNSAFE]
    policy = valid[-1] if valid else ""
    if policy in REFERRER_PRIVATE:
        return "referrer-policy-private", True
    if policy in REFERRER_UNSAFE:
        return "referrer-policy-unsafe", False
    return "referrer-policy-header-invalid", False


def x_content_type_options_test(exchange: Exchange) -> tuple[str, bool]:
    value = exchange.first("x-content-type-options")
    if not value:
        return "x-content-type-options-not-implemented", False
    if value[:256].strip().lower() == "nosniff":
        return "x-content-type-options-nosniff", True
    return "x-content-type-options-header-invalid", False


def x_frame_options_test(exchange: Exchange, csp_directives: dict[str, list[str]] | None) -> tuple[str, bool]:
    value = exchange.first("x-frame-options")
    if not value:
        result = "x-frame-options-not-implemented"
    else:
        xfo = value[:1024].strip().lower()
        if xfo in ("deny", "sameorigin"):
            result = "x-frame-options-sameorigin-or-deny"
        elif xfo.startswith("allow-from"):
            result = "x-frame-options-allow-from-origin"
        else:
            result = "x-frame-options-header-invalid"
    if csp_directives and "frame-ancestors" in csp_directives:
        result = "x-frame-options-implemented-via-csp"
    return result, result in (
        "x-frame-options-allow-from-origin",
        "x-frame-options-sameorigin-or-deny",
        "x-frame-options-implemented-via-csp",
    )


def corp_test(exchange: Exchange) -> tuple[str, bool]:
    value = (exchange.first("cross-origin-resource-policy") or "")[:256].strip()
    if not value:
        return "corp-not-implemented", True
    results = {
        "same-site": "corp-implemented-with-same-site",
        "same-origin": "corp-implemented-with-same-origin",
        "cross-origin": "corp-implemented-with-cross-origin",
    }
    result = results.get(value.lower(), "corp-header-invalid")
    return result, result != "corp-header-invalid"


def cors_test(exchange: Exchange) -> tuple[str, bool]:
    answer = exchange if exchange.cors_headers is None else Exchange(headers=exchange.cors_headers)
    allow_origin = answer.first("access-control-allow-origin")
    if not allow_origin:
        return "cross-origin-resource-sharing-not-implemented", True
    credentials = answer.first("access-control-allow-credentials")
    if allow_origin[:256].strip().lower() == "*":
        return "cross-origin-resource-sharing-implemented-with-public-access", True
    if exchange.origin_sent and allow_origin == exchange.origin_sent and credentials and credentials.lower().strip() == "true":
        return "cross-origin-resource-sharing-implemented-with-universal-access", False
    return "cross-origin-resource-sharing-implemented-with-restricted-access", True


# --- Cross-Origin-Opener-Policy / -Embedder-Policy: an RFC 8941 item whose bare item must be a token -----------

_TOKEN = re.compile(r"[A-Za-z*][!#$%&'*+\-.^_`|~0-9A-Za-z:/]*")
_KEY = re.compile(r"[a-z*][a-z0-9_\-.*]*")
_BARE = re.compile(
    r'-?\d{1,15}(?:\.\d{1,3})?|"(?:[^"\\\x00-\x1f\x7f]|\\["\\])*"|:[A-Za-z0-9+/=]*:|\?[01]|'
    r"[A-Za-z*][!#$%&'*+\-.^_`|~0-9A-Za-z:/]*"
)


def structured_token(value: str) -> str | None:
    """The token of a structured-field item ("same-origin; report-to=\"x\""), or None (not an item, or not a token)."""
    text = value.strip(" ")
    token = _TOKEN.match(text)
    if token is None:
        return None
    position = token.end()
    while position < len(text) and text[position] == ";":
        position += 1
        while position < len(text) and text[position] == " ":
            position += 1
        key = _KEY.match(text, position)
        if key is None:
            return None
        position = key.end()
        if position < len(text) and text[position] == "=":
            bare = _BARE.match(text, position + 1)
            if bare is None:
                return None
            position = bare.end()
    return token.group(0) if position == len(text) else None


def _policy_test(exchange: Exchange, header: str, prefix: str, results: dict[str, str]) -> tuple[str, bool]:
    value = exchange.first(header)
    if value is None or value == "":
        return f"{prefix}-not-implemented", True
    result = results.get(structured_token(value[:1024].strip()) or "", f"{prefix}-header-invalid")
    return result, result != f"{prefix}-header-invalid"


def coop_test(exchange: Exchange) -> tuple[str, bool]:
    return _policy_test(
        exchange,
        "cross-origin-opener-policy",
        "coop",
        {
            "same-origin": "coop-implemented-with-same-origin",
            "same-origin-allow-popups": "coop-implemented-with-same-origin-allow-popups",
            "noopener-allow-popups": "coop-implemented-with-noopener-allow-popups",
            "unsafe-none": "coop-implemented-with-unsafe-none",
        },
    )


def coep_test(exchange: Exchange) -> tuple[str, bool]:
    return _policy_test(
        exchange,
        "cross-origin-embedder-policy",
        "coep",
        {
            "require-corp": "coep-implemented-with-require-corp",
            "credentialless": "coep-implemented-with-credentialless",
            "unsafe-none": "coep-implemented-with-unsafe-none",
        },
    )


# --- Subresource Integrity --------------------------------------------------------------------------------------

SRI_ORDER = (
    "sri-implemented-and-all-scripts-loaded-securely",
    "sri-implemented-and-external-scripts-loaded-securely",
    "sri-implemented-but-external-scripts-not-loaded-securely",
    "sri-not-implemented-but-external-scripts-loaded-securely",
    "sri-not-implemented-and-external-scripts-not-loaded-securely",
    "sri-not-implemented-response-not-html",
)


def _worse(new: str, old: str | None) -> str:
    return new if old is None or SRI_ORDER.index(new) > SRI_ORDER.index(old) else old


def sri_test(exchange: Exchange) -> tuple[str, bool]:
    if not exchange.is_html:
        return "sri-not-implemented-response-not-html", True
    scripts = exchange.page.scripts
    site_domain = registrable_domain(exchange.host)
    result: str | None = None
    foreign = False
    for script in scripts:
        if not script.src:
            continue
        resolved = absolute_url(script.src)  # a browser resolves only absolute URLs against an unknown base
        relative_protocol = relative_origin = False
        if resolved is None and re.match(r"//[^/]", script.src):
            relative_protocol = same_domain = True
        elif resolved is not None and resolved[0] in ("http", "https"):
            same_domain = registrable_domain(resolved[1]) == site_domain
        else:
            relative_origin = same_domain = True
        secure_origin = relative_origin or (same_domain and not relative_protocol)
        foreign = foreign or not secure_origin
        scheme = resolved[0] if resolved is not None and not relative_protocol and not relative_origin else None
        secure_scheme = scheme == "https" or (relative_origin and exchange.https)
        if not secure_origin:
            if script.integrity and not secure_scheme:
                result = _worse("sri-implemented-but-external-scripts-not-loaded-securely", result)
            elif not script.integrity and secure_scheme:
                result = _worse("sri-not-implemented-but-external-scripts-loaded-securely", result)
            elif not script.integrity:
                result = _worse("sri-not-implemented-and-external-scripts-not-loaded-securely", result)
        elif script.integrity and secure_scheme and result is None:
            result = "sri-implemented-and-all-scripts-loaded-securely"
    if not scripts:
        result = "sri-not-implemented-but-no-scripts-loaded"
    elif result is None:
        result = (
            "sri-implemented-and-external-scripts-loaded-securely"
            if foreign
            else "sri-not-implemented-but-all-scripts-loaded-from-secure-origin"
        )
    return result, result in (
        "sri-implemented-and-all-scripts-loaded-securely",
        "sri-implemented-and-external-scripts-loaded-securely",
        "sri-not-implemented-response-not-html",
        "sri-not-implemented-but-no-scripts-loaded",
        "sri-not-implemented-but-all-scripts-loaded-from-secure-origin",
    )
