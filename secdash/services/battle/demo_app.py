"""The demo sites' attackable endpoints and the defense layer in front of them (no web framework here).

Each bundled demo site has the same small endpoints, vulnerable ON PURPOSE (they are what drills attack):

- login (brute force): no lockout of its own;
- search (SQL injection): the query text is pasted into SQL. It runs on a throwaway SQLite file of fake
  rows per site under DATA_DIR/demo_sites/ (never the console's database), opened read-only, with an
  authorizer that allows reading that file's tables only, a time budget and a row cap;
- comment (XSS): the text is echoed into the page unescaped (the console serves every demo response
  with a sandbox CSP, so it runs in an opaque origin);
- upload (malware): anything up to MAX_UPLOAD_BYTES is accepted; nothing is stored, only inspected;
- report (phishing): a reported link is published as is;
- pages (DDoS): no rate limit of its own.

`enforce()` applies a site's DefenseConfig to one request: the first rule that refuses it wins.
"""

from __future__ import annotations

import html
import unicodedata
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from urllib.parse import urlsplit

from secdash.services.battle.defense import (
    MATCH_TIMEOUT_SECONDS,
    MAX_UPLOAD_BYTES,
    DefenseConfig,
    compiled_pattern,
)
from secdash.services.battle.demo_db import (  # noqa: F401  (the demo sites and drills read them here)
    _MEMBERS,
    _PRODUCTS,
    SearchResult,
    _ready,
    check_login,
    demo_db_path,
    ensure_demo_db,
    search,
    search_products,
)

MAX_BODY_BYTES = MAX_UPLOAD_BYTES + 4096  # the demo sites' own hard cap on any request body
MAX_SCANNED_CHARS = 16 * 1024  # of one request part, by the pattern rules
MAX_COMMENT_LENGTH = 2000
MAX_URL_LENGTH = 2000
EICAR = r"X5O!P%@AP[4\PZX54(P^)7CC)7}$EICAR-STANDARD-ANTIVIRUS-TEST-FILE!$H+H*"
# The platforms' own domains: what a look-alike imitates (a defense may name others).
BRAND_DOMAINS = {"stock": "stockai.example", "tour": "tourai.example", "gem": "gemai.example", "shares": "sharesai.example"}

# --- the vulnerable pages --------------------------------------------------------------------------------


def page(title: str, body: str) -> str:
    return (
        f"<!doctype html><html><head><meta charset='utf-8'><title>{html.escape(title)}</title></head><body>{body}</body></html>"
    )


def search_page(slug: str, query: str, result: SearchResult) -> str:
    if result.error:
        items = f"<p class='error'>Search failed: {html.escape(result.error)}</p>"
    else:
        items = "".join(f"<li>{html.escape(str(r['name']))}: {r['price']}</li>" for r in result.rows)
        items = f"<ul>{items}</ul>" if items else "<p>No results</p>"
    return page(f"{slug} search", f"<h1>Search</h1><p>Results for {html.escape(query)}</p>{items}")


def comment_page(slug: str, text: str) -> str:
    """THE PLANTED FLAW: the comment is echoed unescaped (reflected XSS)."""
    return page(f"{slug} comments", f"<h1>Thanks for your comment</h1><div class='comment'>{text}</div>")


def report_page(slug: str, url: str) -> str:
    """A reported link is published for everyone (escaped HTML, but the link itself is not checked)."""
    safe = html.escape(url, quote=True)
    return page(f"{slug} reports", f"<h1>Link published</h1><p><a href='{safe}'>{safe}</a></p>")


def form_page(slug: str, endpoint: str) -> str:
    forms = {
        "login": "<form method='post'><input name='username'><input name='password' type='password'>"
        "<button>Sign in</button></form>",
        "upload": "<form method='post' enctype='multipart/form-data'><input type='file' name='file'>"
        "<button>Upload</button></form>",
        "report": "<form method='post'><input name='url' placeholder='https://'><button>Report a link</button></form>",
    }
    return page(f"{slug} {endpoint}", forms[endpoint])


# --- links ------------------------------------------------------------------------------------------------

_CONFUSABLES = str.maketrans(
    {
        "0": "o",
        "1": "l",
        "3": "e",
        "4": "a",
        "5": "s",
        "7": "t",
        "@": "a",
        "$": "s",
        "|": "l",
        "!": "i",
        "а": "a",
        "е": "e",
        "о": "o",
        "р": "p",
        "с": "c",
        "х": "x",
        "у": "y",
        "і": "i",
        "ј": "j",
        "ԁ": "d",
        "ѕ": "s",
        "ɡ": "g",
        "ο": "o",
        "α": "a",
        "ν": "v",
        "κ": "k",
        "ι": "i",
        "ѵ": "v",
    }
)


def link_host(url: str) -> str | None:
    """The host of a reported link (lower case, Unicode as typed), or None if it is not an http(s) link."""
    try:
        parts = urlsplit(url.strip())
    except ValueError:
        return None
    if parts.scheme.lower() not in ("http", "https") or not parts.hostname:
        return None
    return parts.hostname.lower().rstrip(".")


def _unicode_host(host: str) -> str:
    labels = []
    for label in host.split("."):
        if label.startswith("xn--"):
            try:
                label = label.encode("ascii").decode("idna")
            except UnicodeError:
                pass
        labels.append(label)
    return ".".join(labels)


def is_punycode(host: str) -> bool:
    return any(label.startswith("xn--") for label in host.split(".")) or not host.isascii()


def _skeleton(host: str) -> str:
    text = unicodedata.normalize("NFKC", _unicode_host(host)).lower().translate(_CONFUSABLES)
    text = text.replace("rn", "m").replace("vv", "w").replace("-", "")
    return "".join(ch for ch in unicodedata.normalize("NFKD", text) if not unicodedata.combining(ch))


def _distance(a: str, b: str) -> int:
    previous = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        current = [i]
        for j, cb in enumerate(b, 1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (ca != cb)))
        previous = current
    return previous[-1]


def _registered(host: str) -> str:
    return ".".join(host.split(".")[-2:])


def lookalike_of(host: str, protected: list[str]) -> str | None:
    """The protected domain this host imitates (same skeleton, or one edit away), or None."""
    for domain in protected:
        if host == domain or host.endswith("." + domain):
            return None  # the real thing
    mine = _skeleton(_registered(_unicode_host(host)))
    for domain in protected:
        theirs = _skeleton(domain)
        if mine == theirs or (len(theirs) >= 6 and _distance(mine, theirs) <= 1):
            return domain
        # the brand inside a longer name: stockai.example.login-verify.com
        if _skeleton(domain.split(".")[0]) in _skeleton(_unicode_host(host)).replace(".", ""):
            return domain
    return None


# --- the defense layer ---------------------------------------------------------------------------------


@dataclass
class RequestFacts:
    """What the defense sees of one request."""

    slug: str
    endpoint: str
    path: str
    query: str = ""  # decoded
    body: str = ""  # decoded form fields, or the text of a non-form body
    filename: str | None = None
    upload: bytes | None = None
    url: str | None = None  # a reported link


CountRecent = Callable[[int, Sequence[str] | None], Awaitable[int]]


def _applies(endpoints: Sequence[str] | None, endpoint: str) -> bool:
    return endpoints is None or endpoint in endpoints


async def enforce(config: DefenseConfig, facts: RequestFacts, count_recent: CountRecent) -> tuple[str, int] | None:
    """The rule that refuses this request and the status to answer with, or None to let it through.

    `count_recent(window_seconds, endpoints)` counts this client's earlier requests in the window.
    """
    for limit in config.rate_limits:
        if _applies(limit.endpoints, facts.endpoint):
            if await count_recent(limit.window_seconds, limit.endpoints) >= limit.requests:
                return f"rate_limit:{limit.name}", 429
    parts = {"path": facts.path, "query": facts.query, "body": facts.body}
    for rule in config.patterns:
        if not _applies(rule.endpoints, facts.endpoint):
            continue
        compiled = compiled_pattern(rule.pattern, rule.ignore_case)
        for target in rule.targets:
            text = parts[target][:MAX_SCANNED_CHARS]
            if not text:
                continue
            try:
                if compiled.search(text, timeout=MATCH_TIMEOUT_SECONDS):
                    return f"pattern:{rule.name}", 403
            except TimeoutError:
                return f"pattern:{rule.name} (timed out)", 403
    if facts.upload is not None:
        uploads = config.uploads
        if uploads.max_bytes is not None and len(facts.upload) > uploads.max_bytes:
            return "upload:max_bytes", 413
        name = (facts.filename or "").lower()
        for extension in uploads.blocked_extensions:
            if name.endswith(extension):
                return f"upload:extension {extension}", 403
        for signature in uploads.signatures:
            if signature.text.encode("utf-8") in facts.upload:
                return f"upload:{signature.name}", 403
    if facts.url is not None:
        urls = config.urls
        host = link_host(facts.url) or ""
        if urls.block_punycode and host and is_punycode(host):
            return "url:punycode", 403
        if urls.block_lookalikes and host:
            protected = urls.protected_domains or list(BRAND_DOMAINS.values())
            if lookalike_of(host, protected):
                return "url:lookalike", 403
        unicode_host = _unicode_host(host)
        for domain in urls.blocked_domains:
            if host == domain or host.endswith("." + domain) or unicode_host == domain:
                return f"url:blocked {domain}", 403
    return None
