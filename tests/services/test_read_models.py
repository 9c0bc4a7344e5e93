"""Read models: a view every viewer shares is read once per change per worker, however many pages
read it; a change makes it read again; its figures are the database's; no query per site."""

from __future__ import annotations

import asyncio
from contextlib import contextmanager
from datetime import timedelta

from sqlalchemy import event

from secdash.core import notify
from secdash.core.db import get_engine
from secdash.core.unit import commit
from secdash.models import EventSeverity, EventType, Site, SiteCheck, utcnow
from secdash.services.agents import activities
from secdash.services.monitoring import monitor, sites
from secdash.services.probe import ProbeResult
from secdash.services.problems import events
from secdash.services.reads import dashboard, read_models


@contextmanager
def statements():
    seen: list[str] = []

    def record(_conn, _cursor, statement, *_args):
        seen.append(statement.split()[0].upper())

    engine = get_engine().sync_engine
    event.listen(engine, "before_cursor_execute", record)
    try:
        yield seen
    finally:
        event.remove(engine, "before_cursor_execute", record)


async def _sites_with_checks(session, count: int, checks: int) -> list[Site]:
    now = utcnow()
    made = [Site(name=f"Site {n}", url=f"https://site{n}.example/", domain=f"site{n}.example") for n in range(count)]
    session.add_all(made)
    await session.flush()
    for site in made:
        for i in range(checks):
            session.add(
                SiteCheck(
                    site_id=site.id,
                    checked_at=now - timedelta(seconds=30 * i),
                    status="secure",
                    status_code=200,
                    response_ms=10 + i,
                    grade="A",
                )
            )
    await session.commit()
    return made


async def test_a_hundred_pages_reading_at_once_cost_one_read(session):
    await _sites_with_checks(session, 4, 5)
    with statements() as seen:
        views = await asyncio.gather(*(read_models.sites_with_history() for _ in range(100)))
    assert all(view is views[0] for view in views)  # one read, served to every page
    assert [s for s in seen if s == "SELECT"] == ["SELECT", "SELECT"]  # the sites, and every site's checks
    with statements() as seen:
        await asyncio.gather(*(read_models.sites_with_history() for _ in range(100)))
        await read_models.overview()
        await read_models.overview()
    # nothing changed: the sites are not read again; the overview's other parts once (the simulated traffic is off)
    assert seen.count("SELECT") == 4


async def test_a_change_is_read_once_more_and_shown(session):
    admin_site, *_ = await _sites_with_checks(session, 2, 3)
    before = await read_models.sites_with_history()
    loads = read_models.SITES.loads
    assert before[0][0]["securityStatus"] == "warning"  # never checked yet
    site = await session.get(Site, admin_site.id)
    await monitor.apply_probe(
        session, site, ProbeResult(url=site.url, checked_at=utcnow(), status_code=200, response_ms=42.0, grade="A", score=95)
    )
    await commit(session)  # publishes sites and site:<id>
    after = await asyncio.gather(*(read_models.sites_with_history() for _ in range(20)))
    assert read_models.SITES.loads == loads + 1
    card, history = after[0][0]
    assert card["securityStatus"] == "secure" and card["responseTime"] == 42
    assert history[-1]["responseTime"] == 42 and len(history) == 4  # the new check, newest last


async def test_no_query_per_site(session):
    await _sites_with_checks(session, 30, 3)
    with statements() as seen:
        view = await read_models.sites_with_history()
    assert len(view) == 30 and all(len(history) == 3 for _site, history in view)
    assert seen.count("SELECT") == 2  # thirty sites: still two statements


async def test_the_figures_are_the_databases(session):
    made = await _sites_with_checks(session, 3, read_models.HISTORY_POINTS + 15)
    for n in range(7):
        events.record(
            session,
            event_type=EventType.attack_detected,
            severity=EventSeverity.low,
            description=f"open {n}",
            site_id=made[n % 3].id,
        )
    events.record_blocked_threat(session, description="Blocked SQL injection on /login", source="drill")
    activities.record(session, activity_type="scan", target="Site 1", description="Checked", status="secure")
    await commit(session)

    shared = await read_models.overview()
    direct = await dashboard.overview(session=session)
    assert shared == direct
    assert shared["threatsBlocked"] == 1 and len(shared["recentEvents"]) == events.ALERTS_SIZE

    alerts = await read_models.alerts()
    assert alerts["open_alerts"] == await events.count_open(session=session) == 8
    for site, history in await read_models.sites_with_history():
        assert history == await dashboard.site_history(session=session, site_id=site["id"])  # newest 120, oldest first
        assert len(history) == read_models.HISTORY_POINTS


async def test_a_renamed_site_renames_it_in_the_alerts(session):
    [site] = await _sites_with_checks(session, 1, 0)
    events.record(session, event_type=EventType.attack_detected, severity=EventSeverity.high, description="x", site_id=site.id)
    await commit(session)
    assert (await read_models.alerts())["alerts"][0]["site"] == "Site 0"
    row = await session.get(Site, site.id)
    row.name = "Renamed"
    session.add(row)
    from secdash.core.unit import mark_changed

    mark_changed(session, sites.TOPIC)
    await commit(session)
    assert (await read_models.alerts())["alerts"][0]["site"] == "Renamed"


async def test_a_reader_that_goes_away_does_not_spoil_the_read_for_the_others(session):
    await _sites_with_checks(session, 2, 2)
    read_models.invalidate_all()
    leaving = asyncio.create_task(read_models.sites_with_history())
    staying = asyncio.create_task(read_models.sites_with_history())
    await asyncio.sleep(0)
    leaving.cancel()
    view = await staying
    assert len(view) == 2
    assert leaving.cancelled()


async def test_the_agents_follow_their_sites_status(session):
    stock = Site(name="Stock", url="https://stock.example/", domain="stock.example")
    session.add(stock)
    await session.commit()
    rows = await read_models.agent_rows()
    assert [row["id"] for row in rows] == ["stock", "tour", "gem", "shares"]
    assert {row["status"] for row in rows} == {"monitoring"}
    site = await session.get(Site, stock.id)
    await monitor.apply_probe(session, site, ProbeResult(url=site.url, checked_at=utcnow(), error="Connection refused"))
    await monitor.apply_probe(
        session, site, ProbeResult(url=site.url, checked_at=utcnow(), status_code=200, response_ms=20.0, grade="A", score=95)
    )
    await commit(session)
    rows = await read_models.agent_rows()
    assert rows[0]["status"] == "secured" and rows[1]["status"] == "monitoring"


async def test_on_redis_another_workers_change_makes_this_worker_read_again(session, settings, monkeypatch):
    from tests.services.test_change_feed import _other_worker
    from tests.support.redis_server import REDIS_URL, redis_or_skip

    client = redis_or_skip()
    monkeypatch.setattr(settings, "REDIS_URL", REDIS_URL)
    monkeypatch.setattr(read_models, "REDIS_MAX_AGE_SECONDS", 60.0)  # only the message can make it read again
    try:
        await _sites_with_checks(session, 2, 1)
        await read_models.sites_with_history()
        loads = read_models.SITES.loads
        await read_models.sites_with_history()
        assert read_models.SITES.loads == loads  # nothing changed: served from the read
        assert await notify.listening(10)  # the read started this worker's listener, and it has subscribed
        await asyncio.to_thread(_other_worker, sites.TOPIC)  # another worker's monitor round
        for _ in range(50):
            await asyncio.sleep(0.1)
            await read_models.sites_with_history()
            if read_models.SITES.loads > loads:
                break
        assert read_models.SITES.loads == loads + 1
    finally:
        client.hdel("secdash:seq", sites.TOPIC)
        client.close()
