"""Random header sets for the Observatory agreement benchmark (seeded: the same seed gives the same sets).

Values are drawn from pools that mix what sites send with the malformed and borderline forms the reference's rules
single out (duplicated headers, invalid SameSite, nonce beside 'unsafe-inline', meta policies, ...).
"""

from __future__ import annotations

import random

SOURCES = (
    "'self'",
    "'none'",
    "*",
    "https:",
    "http:",
    "data:",
    "blob:",
    "'unsafe-inline'",
    "'unsafe-eval'",
    "'strict-dynamic'",
    "'nonce-r4nd0m'",
    "'sha256-abc123='",
    "https://cdn.example.com",
    "http://cdn.example.com",
    "ftp://files.example.com",
    "*.example.com",
    "https://*",
    "'UNSAFE-INLINE'",
    "https://cdn.example.com/js/",
    "example.com",
)
DIRECTIVES = (
    "default-src",
    "script-src",
    "style-src",
    "object-src",
    "img-src",
    "media-src",
    "frame-ancestors",
    "base-uri",
    "form-action",
    "connect-src",
    "report-uri",
    "upgrade-insecure-requests",
    "Script-Src",
)
COOKIE_NAMES = (
    "sessionid",
    "SESSION",
    "login_token",
    "csrftoken",
    "prefs",
    "theme",
    "__Host-id",
    "__Secure-x",
    "heroku-session-affinity",
    "samesite_x",
    "_ga",
    "XSRF-TOKEN",
)
HOSTS = ("localhost", "example.com", "www.example.com", "shop.example.co.uk")


def _policy(rng: random.Random) -> str:
    if rng.random() < 0.04:
        return rng.choice(("", "  ", "defa", "default-src 'none'; default-src 'self'"))
    parts = []
    for directive in rng.sample(DIRECTIVES, rng.randint(1, 5)):
        if directive in ("upgrade-insecure-requests",):
            parts.append(directive)
            continue
        if directive == "report-uri":
            parts.append("report-uri " + rng.choice(("/csp", "https://r.example.com/csp", "http://r.example.com")))
            continue
        sources = rng.sample(SOURCES, rng.randint(0, 3))
        parts.append(" ".join([directive, *sources]))
    if rng.random() < 0.05:
        parts.append("report-uri /again")
    return "; ".join(parts) + rng.choice(("", ";", "; "))


def _cookie(rng: random.Random) -> str:
    name = rng.choice(COOKIE_NAMES)
    attrs = [f"{name}={rng.choice(('1', 'abc', 'x=y'))}"]
    if rng.random() < 0.5:
        attrs.append("Path=/")
    if rng.random() < 0.15:
        attrs.append("Domain=" + rng.choice(("example.com", "localhost", "com", "other.org", ".example.com")))
    if rng.random() < 0.55:
        attrs.append(rng.choice(("Secure", "secure")))
    if rng.random() < 0.5:
        attrs.append("HttpOnly")
    if rng.random() < 0.5:
        attrs.append("SameSite=" + rng.choice(("Strict", "Lax", "None", "lax", "Invalid", "", "True")))
    if rng.random() < 0.1:
        attrs.append("Max-Age=0")
    return "; ".join(attrs)


def _body(rng: random.Random, host: str) -> str:
    head = []
    if rng.random() < 0.2:
        head.append(
            f'<meta http-equiv="{rng.choice(("Content-Security-Policy", "content-security-policy"))}" '
            f'content="{_policy(rng)}">'.replace("\"'", '"').replace("'\"", '"')
        )
    if rng.random() < 0.1:
        head.append(f'<meta name="referrer" content="{rng.choice(("no-referrer", "unsafe-url", "origin"))}">')
    scripts = []
    for _ in range(rng.choice((0, 0, 1, 1, 2, 3))):
        src = rng.choice(
            (
                "/static/app.js",
                "app.js",
                f"https://{host}/a.js",
                f"http://{host}/a.js",
                "https://cdn.example.net/lib.js",
                "http://cdn.example.net/lib.js",
                "//cdn.example.net/x.js",
                f"//{host}/x.js",
                "https://static.example.com/s.js",
                None,
            )
        )
        integrity = ' integrity="sha384-abc"' if rng.random() < 0.4 else ""
        scripts.append(f'<script src="{src}"{integrity}></script>' if src else "<script>var a = 1;</script>")
    return f"<!doctype html><html><head>{''.join(head)}</head><body>{''.join(scripts)}</body></html>"


def generate(count: int, seed: int = 22) -> list[dict[str, object]]:
    """`count` cases: {scheme, host, headers: [[name, value], ...], body}."""
    rng = random.Random(seed)
    cases = []
    for _ in range(count):
        host = rng.choice(HOSTS)
        headers: list[list[str]] = []
        content_type = rng.choice(("text/html", "text/html; charset=utf-8", "text/html", "application/json", None))
        if content_type:
            headers.append(["Content-Type", content_type])
        for _ in range(rng.choice((0, 1, 1, 1, 2))):
            headers.append(["Content-Security-Policy", _policy(rng)])
        if rng.random() < 0.08:
            headers.append(["Content-Security-Policy-Report-Only", "default-src 'self'"])
        for _ in range(rng.choice((0, 0, 1, 2, 3))):
            headers.append(["Set-Cookie", _cookie(rng)])
        for _ in range(rng.choice((0, 1, 1, 1, 2))):
            headers.append(
                [
                    "Strict-Transport-Security",
                    rng.choice(
                        (
                            "max-age=63072000; includeSubDomains; preload",
                            "max-age=31536000",
                            "max-age=15552000",
                            "max-age=86400",
                            "max-age=0",
                            "includeSubDomains",
                            'max-age="31536000"',
                            "max-age=abc",
                            "Max-Age=31536000",
                            "max-age = 31536000",
                            "max-age=-1",
                        )
                    ),
                ]
            )
        for _ in range(rng.choice((0, 1, 1, 2))):
            headers.append(
                [
                    "X-Frame-Options",
                    rng.choice(("DENY", "SAMEORIGIN", "sameorigin ", "ALLOW-FROM https://example.com", "ALLOWALL", "whimsy")),
                ]
            )
        for _ in range(rng.choice((0, 1, 1, 1, 2))):
            headers.append(["X-Content-Type-Options", rng.choice(("nosniff", "NOSNIFF", "nosniff ", "whimsy"))])
        for _ in range(rng.choice((0, 1, 1, 2))):
            headers.append(
                [
                    "Referrer-Policy",
                    rng.choice(
                        (
                            "no-referrer",
                            "same-origin",
                            "strict-origin",
                            "strict-origin-when-cross-origin",
                            "origin",
                            "origin-when-cross-origin",
                            "unsafe-url",
                            "no-referrer-when-downgrade",
                            "whimsy",
                            "no-referrer, unsafe-url",
                            "unsafe-url, strict-origin",
                            "STRICT-ORIGIN",
                        )
                    ),
                ]
            )
        if rng.random() < 0.4:
            headers.append(
                [
                    "Cross-Origin-Resource-Policy",
                    rng.choice(("same-origin", "same-site", "cross-origin", "Same-Origin", "whimsy", " ")),
                ]
            )
        if rng.random() < 0.25:
            headers.append(["Access-Control-Allow-Origin", rng.choice(("*", "https://example.org", " * "))])
            if rng.random() < 0.5:
                headers.append(["Access-Control-Allow-Credentials", "true"])
        if rng.random() < 0.3:
            headers.append(
                [
                    "Cross-Origin-Opener-Policy",
                    rng.choice(("same-origin", "same-origin-allow-popups", "unsafe-none", "Same-Origin", '"same-origin"')),
                ]
            )
        if rng.random() < 0.2:
            headers.append(["Cross-Origin-Embedder-Policy", rng.choice(("require-corp", "credentialless", "x"))])
        rng.shuffle(headers)
        body = _body(rng, host) if rng.random() < 0.6 else None
        cases.append({"scheme": "https" if rng.random() < 0.75 else "http", "host": host, "headers": headers, "body": body})
    return cases
