"""The demo sites' throwaway product database and its planted SQL injection (the search), run in a bounded worker.

Each site has a small SQLite file of public and hidden products and member accounts; the search pastes its text
into the SQL on purpose (Battle Station's SQL injection drills attack it), read-only, under an authorizer, with
SQLite's own limits and a progress-handler budget, and in a worker process of its own (core/bounded.py)."""

from __future__ import annotations

import asyncio
import hashlib
import os
import sqlite3
import threading
import time
from contextlib import closing
from dataclasses import dataclass, field
from pathlib import Path

from secdash.core import bounded
from secdash.core.config import get_settings
from secdash.core.files import make_private_dir
from secdash.services.battle.defense import check_slug

SEARCH_ROW_CAP = 50
SEARCH_TIME_BUDGET_SECONDS = 0.5
SEARCH_WORKER_SECONDS = 2.0  # the whole search in its worker: one SQLite opcode can outlast the query's budget
DB_SCHEMA_VERSION = "1"

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


def _open_read_only(slug: str, path: Path | None = None) -> sqlite3.Connection:
    path = path or ensure_demo_db(slug)
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
    busy: bool = False  # refused before it ran: every search worker was taken


def _search_at(path: str, query: str) -> SearchResult:
    """THE PLANTED FLAW: the search text is pasted into the SQL (runs in a bounded worker: see `search`)."""
    sql = f"SELECT name, price FROM products WHERE hidden = 0 AND name LIKE '%{query}%'"  # noqa: S608 (on purpose)
    db = _open_read_only("", Path(path))
    deadline = time.monotonic() + SEARCH_TIME_BUDGET_SECONDS
    db.set_progress_handler(lambda: 1 if time.monotonic() > deadline else 0, 1000)
    try:
        rows = db.execute(sql).fetchmany(SEARCH_ROW_CAP)
    except (sqlite3.Error, sqlite3.Warning, OverflowError) as exc:
        return SearchResult(error=str(exc)[:200])
    finally:
        db.close()
    return SearchResult(rows=[{"name": str(row[0])[:200], "price": row[1] if len(row) > 1 else None} for row in rows])


def search_products(slug: str, query: str) -> SearchResult:
    """The planted search, here in this thread (tests; the site itself uses `search`)."""
    return _search_at(str(ensure_demo_db(slug)), query)


async def search(slug: str, query: str) -> SearchResult:
    """The planted search in a bounded worker of its own: the injected SQL decides its cost, and one SQLite opcode
    (`printf('%.*c', 900000000, 'x')`) outlasts the query's progress-handler budget, so it must never run in the
    server's process or its shared thread pool."""
    path = await asyncio.to_thread(ensure_demo_db, slug)
    try:
        return await bounded.run(bounded.DEMO_SQL, SEARCH_WORKER_SECONDS, _search_at, str(path), query)
    except bounded.BudgetExceeded as exc:
        return SearchResult(error=f"the search ran out of {exc.reason}")
    except bounded.Busy:
        return SearchResult(error="the site is busy; search again in a moment", busy=True)


def check_login(slug: str, username: str, password: str) -> bool:
    """A member's password check (parameterised: the login form is the brute-force target, not SQLi)."""
    db = _open_read_only(slug)
    try:
        row = db.execute("SELECT password_hash FROM members WHERE username = ?", (username[:100],)).fetchone()
    finally:
        db.close()
    return row is not None and row[0] == _password_hash(slug, password[:200])
