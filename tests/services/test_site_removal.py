"""Removing a site closes what belongs to it (issue 23 item 2): its open problems are closed in the same
transaction, with an audit entry, so they leave Security Alerts and the active count and Fix Mode cannot offer them."""

from __future__ import annotations

from sqlmodel import select

from secdash.core.unit import commit
from secdash.models import EventSeverity, EventType, HistoryLog, SecurityEvent, Site
from secdash.services.errors import Invalid
from secdash.services.fix import problems
from secdash.services.monitoring import sites
from secdash.services.problems import events
from tests.factories import make_user


async def _site_with_problems(session) -> tuple[Site, list[SecurityEvent]]:
    site = Site(name="Shares", url="https://shares.example/", domain="shares.example")
    other = Site(name="Gem", url="https://gem.example/", domain="gem.example")
    session.add_all([site, other])
    await session.commit()
    rows = [
        events.record(
            session,
            event_type=EventType.vulnerability_detected,
            severity=EventSeverity.medium,
            description="Shares: Content-Security-Policy header not implemented",
            site_id=site.id,
            source="monitor",
            fingerprint=f"site-finding:{site.id}:csp",
            details={"kind": "site", "finding": "Content-Security-Policy header not implemented"},
        ),
        events.record(
            session,
            event_type=EventType.site_status_changed,
            severity=EventSeverity.high,
            description="Shares is now down",
            site_id=site.id,
        ),
        events.record(
            session,
            event_type=EventType.vulnerability_detected,
            severity=EventSeverity.low,
            description="Gem: X-Frame-Options missing",
            site_id=other.id,
            source="monitor",
            details={"kind": "site", "finding": "X-Frame-Options header not implemented"},
        ),
    ]
    await commit(session)
    return site, rows


async def test_removing_a_site_closes_its_open_problems_and_says_so(session):
    admin = await make_user(session, "root@example.com", role="admin")
    site, rows = await _site_with_problems(session)
    site_id, (finding_id, down_id, elsewhere_id) = site.id, [row.id for row in rows]
    assert await events.count_open(session=session) == 3
    await sites.delete_site(session=session, actor=admin, site_id=site_id)
    session.expire_all()
    assert await events.count_open(session=session) == 1
    for event_id in (finding_id, down_id):
        event = await session.get(SecurityEvent, event_id)
        assert event.resolved and event.resolved_by == "root@example.com"
        assert "Shares was removed" in event.resolution_note
        assert event.details["removedSite"] == "Shares"
    assert not (await session.get(SecurityEvent, elsewhere_id)).resolved
    log = (await session.exec(select(HistoryLog).where(HistoryLog.action == "Site removed"))).one()
    assert log.details["closedProblems"] == 2 and "2 open problems closed" in log.description


async def test_fix_mode_never_offers_a_problem_whose_site_is_gone(session):
    admin = await make_user(session, "root@example.com", role="admin")
    site, (finding, _down, _elsewhere) = await _site_with_problems(session)
    await sites.delete_site(session=session, actor=admin, site_id=site.id)
    offered = await problems.list_problems(session=session, viewer=admin)
    assert [row.problem_id for row in offered] == [_elsewhere.id]
    # a site finding left open without its site (recorded before this rule) is not fixable either
    orphan = events.record(
        session,
        event_type=EventType.vulnerability_detected,
        severity=EventSeverity.low,
        description="Old: HSTS missing",
        site_id=None,
        source="monitor",
        details={"kind": "site", "finding": "Strict-Transport-Security header not implemented"},
    )
    await commit(session)
    assert orphan.id not in [row.problem_id for row in await problems.list_problems(session=session, viewer=admin)]
    try:
        await problems.load(session, admin, orphan.id)
    except Invalid as exc:
        assert "site" in exc.message and "removed" in exc.message
    else:
        raise AssertionError("a problem without its site was loaded for a fix")
