"""The probe's new figures are stored on the site and in its history, shown on its card, and survive the migration."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from datetime import UTC, datetime, timedelta

from sqlmodel import select

from secdash.core.config import PROJECT_ROOT
from secdash.models import Site, SiteCheck, as_utc
from secdash.models.public import SiteCheckPublic, SitePublic
from secdash.services.monitoring import monitor
from secdash.services.probe import Hop, ProbeResult
from secdash.services.reads import read_models
from secdash.state.dashboard_views import site_view

T0 = datetime(2026, 11, 20, 12, 0, tzinfo=UTC)
URL = "https://shop.example/"


def _answer(at: datetime, *, expires: datetime, error: str | None = None) -> ProbeResult:
    days = round((expires - at).total_seconds() / 86400, 1)
    if error:
        return ProbeResult(url=URL, checked_at=at, error=error, tls_days_left=days, tls_expires_at=expires)
    hops = (Hop(URL, 301, 300.0, 301.0), Hop(URL + "a", 302, 600.0, 601.0), Hop(URL + "b", 200, 950.4, 1234.4))
    return ProbeResult(
        url=URL,
        checked_at=at,
        status_code=200,
        ttfb_ms=950.4,
        response_ms=1234.4,
        redirects=2,
        hops=hops,
        tls_days_left=days,
        tls_expires_at=expires,
        grade="A+",
        score=100,
    )


async def test_times_redirects_and_tls_are_stored_and_shown(session):
    site = Site(name="Shop", url=URL, domain="shop.example", allow_private=True)
    session.add(site)
    await session.commit()
    await monitor.apply_probe(session, site, _answer(T0, expires=T0 + timedelta(days=3)))
    await session.commit()
    await session.refresh(site)
    assert (site.response_time_ms, site.ttfb_ms, site.redirects) == (1234, 950, 2)
    assert site.tls_days_left == 3.0 and as_utc(site.tls_expires_at) == T0 + timedelta(days=3)
    check = (await session.exec(select(SiteCheck))).one()
    assert (check.response_ms, check.ttfb_ms, check.redirects, check.tls_days_left) == (1234, 950, 2, 3.0)

    history = (await read_models.recent_checks(session=session))[site.id]
    view = site_view(SitePublic.of(site), [SiteCheckPublic.model_validate(row) for row in history])
    assert view.response_time == "1,234 ms" and view.tls == "3.0 days"
    assert view.tls_title == "Expires Nov 23 2026, 12:00:00 UTC"
    assert view.timing == "First byte 950 ms · 2 redirects · certificate until Nov 23 2026, 12:00 UTC"
    assert view.chart == [{"time": "12:00:00", "ms": 1234, "note": "first byte 950 ms, 2 redirects"}]
    assert SitePublic.of(site).model_dump(mode="json")["tlsExpiresAt"] == "2026-11-23T12:00:00Z"


async def test_an_expired_certificate_reads_expired_on_the_card(session):
    site = Site(name="Shop", url=URL, domain="shop.example", allow_private=True)
    session.add(site)
    await session.commit()
    at = T0 + timedelta(days=2.5)
    await monitor.apply_probe(session, site, _answer(at, expires=T0, error="TLS certificate expired"))
    await session.commit()
    await session.refresh(site)
    assert site.status == "critical" and site.tls_days_left == -2.5 and site.response_time_ms is None
    view = site_view(SitePublic.of(site), [])
    assert view.tls == "expired" and view.tls_title == "Expired 2.5 days before the check (Nov 20 2026, 12:00:00 UTC)"
    assert view.timing == "certificate expired Nov 20 2026, 12:00 UTC"


def _alembic(env: dict[str, str], *args: str) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "alembic", *args], env=env, cwd=PROJECT_ROOT, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr


def test_the_migration_keeps_stored_days_and_times(tmp_path):
    env = {**os.environ, "SECDASH_DATA_DIR": str(tmp_path), "SECDASH_DATABASE_URL": f"sqlite:///{tmp_path / 'old.db'}"}
    _alembic(env, "upgrade", "e9b3c6a1f4d2")
    with sqlite3.connect(tmp_path / "old.db") as db:
        db.execute(
            "INSERT INTO sites (name, domain, url, status, is_demo, allow_private, created_at, tls_days_left, "
            "response_time_ms) VALUES ('A', 'a', 'https://a/', 'secure', 0, 0, '2026-11-01 00:00:00', 12, 40)"
        )
        db.execute(
            "INSERT INTO site_checks (site_id, status, checked_at, tls_days_left, response_ms) VALUES "
            "(1, 'secure', '2026-11-01 00:00:00', 12, 40)"
        )
    _alembic(env, "upgrade", "head")
    with sqlite3.connect(tmp_path / "old.db") as db:
        assert db.execute(
            "SELECT tls_days_left, response_time_ms, ttfb_ms, redirects, tls_expires_at, probe_requested_at FROM sites"
        ).fetchall() == [(12.0, 40, None, None, None, None)]
        assert db.execute("SELECT tls_days_left, response_ms, ttfb_ms FROM site_checks").fetchall() == [(12.0, 40, None)]
        db.execute("UPDATE sites SET tls_days_left = 2.5")
    _alembic(env, "downgrade", "e9b3c6a1f4d2")
    with sqlite3.connect(tmp_path / "old.db") as db:
        assert db.execute("SELECT count(*) FROM site_checks").fetchone() == (1,)
