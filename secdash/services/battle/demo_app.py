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

import hashlib
import html
import os
import sqlite3
import threading
import time
import unicodedata
from collections.abc import Awaitable, Callable
from contextlib import closing
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

from secdash.core.config import get_settings
from secdash.core.files import make_private_dir
from secdash.services.battle.defense import (
    MATCH_TIMEOUT_SECONDS,
    MAX_UPLOAD_BYTES,
    DefenseConfig,
    check_slug,
    compiled_pattern,
)

MAX_BODY_BYTES = MAX_UPLOAD_BYTES + 4096  # the demo sites' own hard cap on any request body
MAX_SCANNED_CHARS = 16 * 1024  # of one request part, by the pattern rules
SEARCH_ROW_CAP = 50
SEARCH_TIME_BUDGET_SECONDS = 0.5
MAX_COMMENT_LENGTH = 2000
MAX_URL_LENGTH = 2000
DB_SCHEMA_VERSION = "1"
EICAR = r"X5O!P%@AP[4\PZX54(P^)7CC)7}$EICAR-STANDARD-ANTIVIRUS-TEST-FILE!$H+H*"
# The platforms' own domains: what a look-alike imitates (a defense may name others).
BRAND_DOMAINS = {"stock": "stockai.example", "tour": "tourai.example", "gem": "gemai.example", "shares": "sharesai.example"}

# Fake rows: a few public products per site, hidden ones and member accounts that SQL injection exposes.
_PRODUCTS = {
    "stock": [
        ("Market Pulse Report", 19.0, 0),
        ("Portfolio Tracker", 9.0, 0),
        ("Dividend Screener", 12.0, 0),
        ("Insider Preview (unreleased)", 0.0, 1),
    ],
    "tour": [
        ("City Walk Guide", 5.0, 0),
        ("Alpine Trek Planner", 15.0, 0),
        ("Beach Day Pass", 8.0, 0),
        ("Staff Discount Codes (internal)", 0.0, 1),
    ],
    "gem": [
        ("Ring Appraisal", 49.0, 0),
        ("Stone Certificate", 29.0, 0),
        ("Vault Storage", 99.0, 0),
        ("Supplier Price List (internal)", 0.0, 1),
    ],
    "shares": [
        ("Design Pack", 14.0, 0),
        ("Template Bundle", 24.0, 0),
        ("Creator Plan", 7.0, 0),
        ("Moderation Queue Export (internal)", 0.0, 1),
    ],
}
_ready: set[Path] = set()  # files checked (or built) by this process
_build_lock = threading.Lock()
_MEMBERS = [("alice", "sunshine1"), ("bob", "letmein99"), ("demo", "dragon2024")]


# --- the throwaway database ----------------------------------------------------------------------------


def demo_db_path(slug: str) -> Path:
    return get_settings().DATA_DIR / "demo_sites" / f"{check_slug(slug)}.sqlite3"


def _password_hash(slug: str, password: str) -> str:
    return hashlib.sha256(f"{slug}:{password}".encode()).hexdigest()


def ensure_demo_db(slug: str) -> Path:
    """Create the site's fake database once (written to a temporary file, then renamed into place).

    Requests run this in worker threads: a lock keeps two of a burst from building the same file at once
    (they would share one temporary file name and leave an empty database behind)."""
    path = demo_db_path(slug)
    if path in _ready and path.is_file():
        return path
    with _build_lock:
        return _ensure_demo_db(slug, path)


def _ensure_demo_db(slug: str, path: Path) -> Path:
    if path in _ready and path.is_file():
        return path
    if path.is_file():
        try:
            with closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True)) as db:
                if db.execute("SELECT value FROM meta WHERE key = 'version'").fetchone() == (DB_SCHEMA_VERSION,):
                    _ready.add(path)
                    return path
        except sqlite3.Error:
            pass
    make_private_dir(path.parent)
    tmp = path.with_suffix(f".{os.getpid()}.tmp")
    tmp.unlink(missing_ok=True)
    db = sqlite3.connect(tmp)
    try:
        db.executescript(
            "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT);"
            "CREATE TABLE products (id INTEGER PRIMARY KEY, name TEXT, price REAL, hidden INTEGER);"
            "CREATE TABLE members (id INTEGER PRIMARY KEY, username TEXT, password_hash TEXT);"
        )
        db.execute("INSERT INTO meta VALUES ('version', ?)", (DB_SCHEMA_VERSION,))
        db.executemany("INSERT INTO products (name, price, hidden) VALUES (?, ?, ?)", _PRODUCTS[slug])
        db.executemany(
            "INSERT INTO members (username, password_hash) VALUES (?, ?)",
            [(user, _password_hash(slug, password)) for user, password in _MEMBERS],
        )
        db.commit()
    finally:
        db.close()
    os.replace(tmp, path)
    _ready.add(path)
    return path


def _authorizer(action: int, arg1: str | None, _arg2: str | None, db_name: str | None, _trigger: str | None) -> int:
    """Reading the site's own tables, and SELECT with plain functions; nothing else (no ATTACH, no PRAGMA)."""
    if action in (sqlite3.SQLITE_SELECT, sqlite3.SQLITE_FUNCTION):
        return sqlite3.SQLITE_OK
    if action == sqlite3.SQLITE_READ and db_name in (None, "main") and not (arg1 or "").startswith("sqlite_"):
        return sqlite3.SQLITE_OK
    if action == sqlite3.SQLITE_READ and (arg1 or "") == "sqlite_master":
        return sqlite3.SQLITE_OK  # schema discovery is part of a realistic injection
    return sqlite3.SQLITE_DENY


def _open_read_only(slug: str) -> sqlite3.Connection:
    path = ensure_demo_db(slug)
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True, check_same_thread=False)
    db.setlimit(sqlite3.SQLITE_LIMIT_LENGTH, 100_000)
    db.setlimit(sqlite3.SQLITE_LIMIT_SQL_LENGTH, 10_000)
    db.setlimit(sqlite3.SQLITE_LIMIT_ATTACHED, 0)
    db.set_authorizer(_authorizer)
    return db


@dataclass
class SearchResult:
    rows: list[dict[str, object]] = field(default_factory=list)
    error: str | None = None


def search_products(slug: str, query: str) -> SearchResult:
    """THE PLANTED FLAW: the search text is pasted into the SQL (run this in a worker thread)."""
    sql = f"SELECT name, price FROM products WHERE hidden = 0 AND name LIKE '%{query}%'"  # noqa: S608 (on purpose)
    db = _open_read_only(slug)
    deadline = time.monotonic() + SEARCH_TIME_BUDGET_SECONDS
    db.set_progress_handler(lambda: 1 if time.monotonic() > deadline else 0, 1000)
    try:
        rows = db.execute(sql).fetchmany(SEARCH_ROW_CAP)
    except (sqlite3.Error, sqlite3.Warning, OverflowError) as exc:
        return SearchResult(error=str(exc)[:200])
    finally:
        db.close()
    return SearchResult(rows=[{"name": str(row[0])[:200], "price": row[1] if len(row) > 1 else None} for row in rows])


def check_login(slug: str, username: str, password: str) -> bool:
    """A member's password check (parameterised: the login form is the brute-force target, not SQLi)."""
    db = _open_read_only(slug)
    try:
        row = db.execute("SELECT password_hash FROM members WHERE username = ?", (username[:100],)).fetchone()
    finally:
        db.close()
    return row is not None and row[0] == _password_hash(slug, password[:200])


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


CountRecent = Callable[[int, list[str] | None], Awaitable[int]]


def _applies(endpoints: list[str] | None, endpoint: str) -> bool:
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
