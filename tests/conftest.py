"""Shared fixtures: a migrated database (SQLite by default, PostgreSQL when asked) per test session."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from sqlalchemy import text
from sqlmodel import SQLModel

# Settings are read from the environment: point them at throw-away places before anything imports them.
_TEST_DATA_DIR = Path(os.environ.setdefault("SECDASH_TEST_DATA_DIR", "/tmp/secdash-test-data")) / str(os.getpid())
os.environ["SECDASH_DATA_DIR"] = str(_TEST_DATA_DIR)
os.environ["SECDASH_DATABASE_URL"] = os.environ.get("SECDASH_TEST_DATABASE_URL", f"sqlite:///{_TEST_DATA_DIR / 'test.db'}")
# pytest-xdist: each worker empties and migrates a PostgreSQL database of its own (SQLite files are per process).
if os.environ["SECDASH_DATABASE_URL"].startswith("postgresql") and os.environ.get("PYTEST_XDIST_WORKER"):
    os.environ["SECDASH_DATABASE_URL"] += "_" + os.environ["PYTEST_XDIST_WORKER"]
os.environ["SECDASH_SECRET_KEY"] = "test-secret-key-that-is-long-enough-for-hs256-0123456789"
os.environ.pop("REFLEX_REDIS_URL", None)
os.environ.pop("SECDASH_ADMIN_EMAIL", None)
os.environ.pop("SECDASH_ADMIN_PASSWORD", None)

from passlib.context import CryptContext  # noqa: E402

from secdash.cli import migrate  # noqa: E402
from secdash.core import notify, security  # noqa: E402
from secdash.core.config import get_settings  # noqa: E402
from secdash.core.db import get_engine, session_scope  # noqa: E402
from secdash.services.identity import quotas  # noqa: E402

# A cheap argon2id profile for the in-process tests (the production one costs ~0.2 s a hash and a verify, at hundreds
# of sign-ins); tests/services/test_password_profile.py checks the production profile, and the browser tests' servers
# run it unchanged.
security._pwd_context = CryptContext(
    schemes=["argon2"], deprecated="auto", argon2__memory_cost=256, argon2__time_cost=1, argon2__parallelism=1
)


def _create_database_if_missing(url: str) -> None:
    """A worker's own PostgreSQL database, made on the server the configured one lives on."""
    import psycopg
    from sqlalchemy.engine import make_url

    target = make_url(url)
    admin_url = target.set(drivername="postgresql", database="postgres").render_as_string(hide_password=False)
    with psycopg.connect(admin_url, autocommit=True) as conn:
        if not conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", (target.database,)).fetchone():
            conn.execute(f'CREATE DATABASE "{target.database}"')


@pytest.fixture(scope="session")
def migrated_db():
    """Run the real migrations once: the tests use the schema alembic builds, not create_all."""
    _TEST_DATA_DIR.mkdir(parents=True, exist_ok=True)
    get_settings.cache_clear()
    url = get_settings().database_url
    if url.startswith("postgresql"):
        from sqlalchemy import create_engine

        _create_database_if_missing(url)
        engine = create_engine(url)
        with engine.begin() as conn:
            conn.execute(text("DROP SCHEMA public CASCADE; CREATE SCHEMA public;"))
        engine.dispose()
    migrate()
    return url


@pytest.fixture
async def session(migrated_db):
    """A session on an emptied database."""
    engine = get_engine()
    async with engine.begin() as conn:
        for table in reversed(SQLModel.metadata.sorted_tables):
            await conn.execute(table.delete())
    await notify.reset()
    await quotas.reset()
    async with session_scope() as db_session:
        yield db_session


@pytest.fixture
def settings():
    return get_settings()


pytest_plugins = ["tests.support.browser"]


# Overrides of pytest-playwright / pytest-base-url fixtures live here: a conftest wins over plugins.
@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args):
    from tests.support.live_server import CHROMIUM, CHROMIUM_ARGS

    return {**browser_type_launch_args, "executable_path": CHROMIUM, "args": CHROMIUM_ARGS}


@pytest.fixture(scope="session")
def browser_context_args(browser_context_args):
    """Pages as a person who asked their system for less motion sees them (assets/motion.css): nothing pulses or
    spins, so an open page does not repaint all the time (a pulsing dot cost headless Chromium 4 CPU-s a minute,
    beside the 1 the page needs); tests/e2e/test_layout.py checks the animations for everyone else."""
    return {**browser_context_args, "reduced_motion": "reduce"}


@pytest.fixture(scope="session")
def base_url(server):
    return server


BROWSER_TEST_DIRS = ("/tests/e2e/", "/tests/security/browser/")


def is_browser_test(item) -> bool:
    return any(part in str(item.path) for part in BROWSER_TEST_DIRS)


def pytest_collection_modifyitems(items):
    """Browser tests get the e2e mark and run last: Playwright's sync API keeps a loop running that
    async tests cannot share."""
    for item in items:
        if is_browser_test(item):
            item.add_marker(pytest.mark.e2e)
    items.sort(key=is_browser_test)
