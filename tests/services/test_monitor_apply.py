"""What a monitor round writes (issue 26): a check row only when the probe changed something or the site's newest
row is old, a round's reads batched (the statements of a round where nothing changed do not grow with the number of
sites), alerting still firing on a change, and history pruned in batches after SECDASH_HISTORY_DAYS."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import event, func
from sqlmodel import select

from secdash.core.config import get_settings
from secdash.core.db import get_engine
from secdash.core.unit import commit
from secdash.jobs import runner
from secdash.models import Site, SiteCheck
from secdash.models.alerting import AlertState, NotificationDelivery
from secdash.services.alerting import channels
from secdash.services.monitoring import monitor
from secdash.services.probe import ProbeResult
from secdash.services.reads import dashboard
from tests.factories import make_user
from tests.support.api_app import shared_api
from tests.support.notify_receivers import WebhookReceiver
from tests.support.web_servers import LocalSite

T0 = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)


def _answer(site: Site, at: datetime, *, code: int = 200, ms: float = 40.0, grade: str = "A") -> ProbeResult:
    return ProbeResult(url=site.url, checked_at=at, status_code=code, response_ms=ms, ttfb_ms=ms / 2, grade=grade, score=90)


async def _site(session, name: str = "Blog") -> Site:
    site = Site(name=name, url=f"http://{name.lower()}.example/", domain=f"{name.lower()}.example")
    session.add(site)
    await session.commit()
    return site


async def _checks(session, site: Site) -> list[SiteCheck]:
    query = select(SiteCheck).where(SiteCheck.site_id == site.id).order_by(SiteCheck.checked_at)  # type: ignore[arg-type]
    return list((await session.exec(query)).all())


async def _apply(session, site: Site, result: ProbeResult, *, batched: bool) -> None:
    """As a round does (the batched reads) or as a fix's single probe does."""
    reads = await monitor.load_round(session, [(site, result)]) if batched else None
    await monitor.apply_probe(session, site, result, reads)
    await commit(session)


@pytest.mark.parametrize("batched", [True, False])
async def test_an_unchanged_probe_within_the_interval_stores_no_row_and_a_change_always_does(session, batched):
    site = await _site(session)
    await _apply(session, site, _answer(site, T0, ms=40), batched=batched)  # the first probe: stored
    await _apply(session, site, _answer(site, T0 + timedelta(seconds=30), ms=55), batched=batched)  # unchanged
    await _apply(session, site, _answer(site, T0 + timedelta(seconds=60), ms=45, grade="B"), batched=batched)  # grade
    await _apply(session, site, _answer(site, T0 + timedelta(seconds=90), code=503), batched=batched)  # status, code
    await _apply(session, site, _answer(site, T0 + timedelta(seconds=120), code=503), batched=batched)  # unchanged
    await session.refresh(site)
    checks = await _checks(session, site)
    assert [(c.status_code, c.grade, c.response_ms) for c in checks] == [(200, "A", 40), (200, "B", 45), (503, "A", 40)]
    # the site's own row always has the newest probe's figures
    assert site.status_code == 503 and site.last_checked_at is not None

    # unchanged, but the newest row is UNCHANGED_CHECK_INTERVAL old: stored, with its own probe's response time
    later = T0 + timedelta(seconds=90) + monitor.UNCHANGED_CHECK_INTERVAL
    await _apply(session, site, _answer(site, later, code=503, ms=70), batched=batched)
    await _apply(session, site, _answer(site, later + timedelta(seconds=30), code=503), batched=batched)
    checks = await _checks(session, site)
    assert len(checks) == 4 and checks[-1].response_ms == 70

    # an error, and a different error, are changes too; so is a new whole day of TLS validity left
    failed = ProbeResult(url=site.url, checked_at=later + timedelta(seconds=60), error="Connection refused")
    await _apply(session, site, failed, batched=batched)
    timed_out = ProbeResult(url=site.url, checked_at=later + timedelta(seconds=90), error="Timed out after 10s")
    await _apply(session, site, timed_out, batched=batched)
    assert [c.error for c in (await _checks(session, site))[-2:]] == ["Connection refused", "Timed out after 10s"]
    tls = [
        ProbeResult(url=site.url, checked_at=later + timedelta(seconds=s), status_code=200, grade="A", tls_days_left=d)
        for s, d in ((120, 20.4), (150, 20.2), (180, 19.9))
    ]
    for result in tls:
        await _apply(session, site, result, batched=batched)
    assert [c.tls_days_left for c in (await _checks(session, site))[-2:]] == [20.4, 19.9]


async def test_the_chart_and_the_api_show_a_point_per_kept_check(session):
    import httpx

    from tests.api.conftest import signed_in

    site = await _site(session)
    for second, code in ((0, 200), (30, 200), (60, 500), (90, 500), (120, 200)):
        await _apply(session, site, _answer(site, T0 + timedelta(seconds=second), code=code, ms=40 + second), batched=True)
    kept = [(c.status_code, c.response_ms) for c in await _checks(session, site)]
    assert kept == [(200, 40), (500, 100), (200, 160)]
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=shared_api()), base_url="http://testserver") as client:
        headers = await signed_in(client, session, "viewer@example.com", "limited")
        api = await client.get(f"/api/sites/{site.id}/checks", headers=headers)
    assert api.status_code == 200
    assert [(p["statusCode"], p["responseTime"]) for p in api.json()] == kept
    history = await dashboard.site_checks(session=session, site_id=site.id)
    assert [(p.status_code, p.response_time) for p in history] == kept


async def _count_round_statements(session, n: int, server: LocalSite) -> int:
    for i in range(n):
        session.add(Site(name=f"t{n}-{i}", url=f"{server.base}/?n={n}&i={i}", domain="127.0.0.1", allow_private=True))
    await session.commit()
    await monitor.probe_all()  # the first checks: rows, findings opened
    await monitor.probe_all()
    statements: list[str] = []

    def count(_conn, _cursor, statement, _params, _context, _many) -> None:
        statements.append(statement.split(None, 1)[0].upper())

    engine = get_engine().sync_engine
    event.listen(engine, "before_cursor_execute", count)
    try:
        statuses = await monitor.probe_all()
    finally:
        event.remove(engine, "before_cursor_execute", count)
    assert len(statuses) >= n and len(set(statuses.values())) == 1  # the same answer for every site
    return len(statements)


async def test_a_round_where_nothing_changed_does_not_query_per_site(session):
    server = LocalSite({"/": (200, {}, b"ok", 0.0)})
    try:
        few = await _count_round_statements(session, 3, server)
        many = await _count_round_statements(session, 30, server)  # 33 sites in this round
    finally:
        server.close()
    assert many == few, (few, many)
    assert few <= 16  # sites, agents, alert states, settings, TLS rule, findings, newest checks, the UPDATE, commit
    rows = (await session.exec(select(func.count()).select_from(SiteCheck))).one()
    assert rows == 33  # the first probe of each site only: later ones changed nothing


async def test_alerting_still_fires_on_a_change_in_a_batched_round(session):
    site = await _site(session)
    admin = await make_user(session, "root@example.com", role="admin")
    receiver = WebhookReceiver()
    await channels.create_channel(session=session, actor=admin, name="Ops", url=receiver.url(), allow_private=True)
    await _apply(session, site, _answer(site, T0), batched=True)
    assert (await session.exec(select(AlertState))).all() == []  # SECURE with no state: nothing stored
    down = ProbeResult(url=site.url, checked_at=T0 + timedelta(seconds=30), error="Connection refused")
    await _apply(session, site, down, batched=True)
    still = ProbeResult(url=site.url, checked_at=T0 + timedelta(seconds=60), error="Connection refused")
    await _apply(session, site, still, batched=True)  # still down: no second message
    deliveries = (await session.exec(select(NotificationDelivery))).all()
    for delivery in deliveries:
        await runner.wait_for(delivery.job_id, timeout=30)
    receiver.close()
    assert [d.kind for d in deliveries] == ["site_down"] and "Blog is DOWN" in deliveries[0].title
    state = (await session.exec(select(AlertState).where(AlertState.subject == f"site:{site.id}"))).one()
    assert state.state == "down" and state.notified == "down"


async def test_history_is_pruned_in_batches_after_the_configured_days(session, monkeypatch):
    monkeypatch.setattr(get_settings(), "HISTORY_DAYS", 2.0)
    site = await _site(session)
    now = datetime.now(UTC)
    for hours in range(0, 24 * 4, 2):  # 48 rows over 4 days
        session.add(SiteCheck(site_id=site.id, checked_at=now - timedelta(hours=hours, minutes=1), status="secure"))
    await session.commit()
    statements: list[str] = []

    def count(_conn, _cursor, statement, _params, _context, _many) -> None:
        if statement.lstrip().upper().startswith("DELETE"):
            statements.append(statement)

    engine = get_engine().sync_engine
    event.listen(engine, "before_cursor_execute", count)
    try:
        deleted = await monitor.prune_history(session=session, batch=10)
    finally:
        event.remove(engine, "before_cursor_execute", count)
    assert deleted == 24  # rows 48 h old and more (hours 48, 50, ... 94)
    assert len(statements) == 3  # 10 + 10 + 4
    left = await _checks(session, site)
    assert len(left) == 24 and min(c.checked_at.replace(tzinfo=UTC) for c in left) > now - timedelta(days=2)
