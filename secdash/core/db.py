"""Database engines and sessions (async for the app, sync for migrations and the CLI)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from sqlalchemy import event
from sqlalchemy.ext.asyncio import AsyncEngine, async_sessionmaker, create_async_engine
from sqlmodel.ext.asyncio.session import AsyncSession

from secdash.core.config import get_settings
from secdash.core.files import make_private_dir

_engine: AsyncEngine | None = None
_sessionmaker: async_sessionmaker[AsyncSession] | None = None


def _tune_sqlite(dbapi_connection, _record) -> None:
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    # A writer waits up to 15 s for another's lock: on a loaded 2-core machine (CI) a drill's burst of request logs
    # kept writers waiting past 5 s and they failed with "database is locked". The wait runs in aiosqlite's
    # thread, never on the event loop, and stays well under the job reaper's 60 s.
    cursor.execute("PRAGMA busy_timeout=15000")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.close()


def get_engine() -> AsyncEngine:
    """The process-wide async engine, created on first use from the settings."""
    global _engine, _sessionmaker
    if _engine is None:
        settings = get_settings()
        url = settings.async_database_url
        if url.startswith("sqlite"):
            make_private_dir(settings.DATA_DIR)
            _engine = create_async_engine(url)
            event.listen(_engine.sync_engine, "connect", _tune_sqlite)
        else:
            _engine = create_async_engine(url, pool_pre_ping=True, pool_size=5, max_overflow=5)
        _sessionmaker = async_sessionmaker(_engine, class_=AsyncSession, expire_on_commit=False)
    return _engine


@asynccontextmanager
async def session_scope() -> AsyncIterator[AsyncSession]:
    """A session for one unit of work; the caller commits, anything unfinished rolls back."""
    get_engine()
    assert _sessionmaker is not None
    async with _sessionmaker() as session:
        yield session


async def dispose_engine() -> None:
    """Close every pooled connection and forget the engine (tests, settings changes)."""
    global _engine, _sessionmaker
    if _engine is not None:
        await _engine.dispose()
    _engine = None
    _sessionmaker = None
