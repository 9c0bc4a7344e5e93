"""Threats Blocked counts enforced blocks: requests a site answered 403/429 because a decision covered their client
(seen in its access log), one record per decision that grows, never a 403 the site gave for its own reasons."""

from __future__ import annotations

from datetime import datetime, timedelta

from sqlmodel import select

from secdash.core.db import session_scope
from secdash.models import EventType, SecurityEvent, Site, TrafficDecision, utcnow
from secdash.services.problems import events
from secdash.services.traffic import decisions, ingest
from secdash.services.traffic.detection import LiveDetection
from tests.factories import make_user


def _line(address: str, status: int, when: datetime, target: str = "/") -> str:
    stamp = when.strftime("%d/%b/%Y:%H:%M:%S +0000")
    return f'{address} - - [{stamp}] "GET {target} HTTP/1.1" {status} 0 "-" "curl/8"'


async def _site(session) -> Site:
    site = Site(name="Shop", domain="shop.example", url="https://shop.example/")
    session.add(site)
    await session.commit()
    await session.refresh(site)
    return site


async def _send_and_read(live: LiveDetection, site: Site, lines: list[str]) -> None:
    async with session_scope() as own:
        await ingest.ingest_lines(own, site.id, lines)
    async with session_scope() as own:
        await live.step(own)


async def test_a_banned_clients_403s_are_counted_on_one_record_that_grows(session):
    site = await _site(session)
    admin = await make_user(session, "root@example.com", role="admin")
    live = LiveDetection(loaded=[])  # no scenario: only the operator's decisions
    async with session_scope() as own:
        await live.start(own)
        await decisions.add_decision(session=own, actor=admin, value="203.0.113.0/24", type_="ban", seconds=3600, reason="abuse")
    later = utcnow() + timedelta(seconds=1)
    assert await events.count_threats_blocked(session=session) == 0
    await _send_and_read(
        live,
        site,
        [
            _line("203.0.113.7", 403, later),
            _line("203.0.113.8", 429, later),
            _line("203.0.113.7", 200, later),  # let through: not a block
            _line("198.51.100.1", 403, later),  # forbidden for the site's own reasons: no decision covers it
        ],
    )
    assert await events.count_threats_blocked(session=session) == 2
    await _send_and_read(live, site, [_line("203.0.113.9", 403, later) for _ in range(3)])
    assert await events.count_threats_blocked(session=session) == 5
    records = (await session.exec(select(SecurityEvent).where(SecurityEvent.event_type == EventType.threat_blocked))).all()
    assert len(records) == 1 and records[0].site_id == site.id and records[0].resolved
    assert "203.0.113.0/24" in records[0].description and "abuse" in records[0].description
    decision = (await session.exec(select(TrafficDecision))).one()
    assert decision.blocked_event_id == records[0].id


async def test_a_403_before_the_decision_was_made_is_not_counted(session):
    site = await _site(session)
    admin = await make_user(session, "root@example.com", role="admin")
    live = LiveDetection(loaded=[])
    async with session_scope() as own:
        await live.start(own)
        await decisions.add_decision(session=own, actor=admin, value="203.0.113.7", type_="ban", seconds=3600, reason="")
    await _send_and_read(live, site, [_line("203.0.113.7", 403, utcnow() - timedelta(minutes=5))])
    assert await events.count_threats_blocked(session=session) == 0
