"""The bundled demo sites feed their own requests through the traffic path: a fresh install shows real traffic,
and a Battle Station drill's requests (and what they trigger) are the drill's."""

from __future__ import annotations

import pytest
from sqlmodel import select

from secdash.core.db import session_scope
from secdash.models import DecisionOrigin, Site, TrafficDecision, TrafficDetection, TrafficMinute, TrafficRequest
from secdash.services.battle.request_log import drill_header
from secdash.services.monitoring import sites
from secdash.services.traffic.detection import LiveDetection
from tests.support.battle import demo_sites_client


@pytest.fixture
async def http(session, monkeypatch, settings):
    await sites.init_default_sites(session=session, settings=settings)
    async with demo_sites_client(monkeypatch, settings) as client:
        yield client


async def _stock(session) -> Site:
    return (await session.exec(select(Site).where(Site.default_slug == "stock"))).one()


async def test_a_visit_to_a_demo_site_is_in_its_traffic_as_nginx_would_log_it(session, http):
    answer = await http.get("/demo/stock/search", params={"q": 'a "quoted" query'}, headers={"User-Agent": "Firefox/120"})
    assert answer.status_code == 200
    stock = await _stock(session)
    row = (await session.exec(select(TrafficRequest))).one()
    assert (row.site_id, row.method, row.status, row.user_agent) == (stock.id, "GET", 200, "Firefox/120")
    assert row.target == "/demo/stock/search?q=a+%22quoted%22+query" and row.size == len(answer.content)
    assert row.operation_id is None
    minute = (await session.exec(select(TrafficMinute))).one()
    assert (minute.site_id, minute.requests, minute.status_2xx) == (stock.id, 1, 1)


async def test_a_drills_attack_is_its_own_traffic_and_its_ban_is_the_drills(session, http):
    live = LiveDetection()
    async with session_scope() as own:
        await live.start(own)
    attacker = "100.64.0.9"
    for i in range(12):
        header = drill_header("op-traffic", "attack", attacker)
        await http.get(f"/demo/stock/missing-{i}", headers={"X-SecDash-Drill": header})
    async with session_scope() as own:
        await live.step(own)
    rows = (await session.exec(select(TrafficRequest))).all()
    assert {row.operation_id for row in rows} == {"op-traffic"} and {row.address for row in rows} == {attacker}
    detection = (await session.exec(select(TrafficDetection))).one()
    assert (detection.scenario, detection.operation_id) == ("http-probing", "op-traffic")
    decision = (await session.exec(select(TrafficDecision))).one()
    assert decision.origin == DecisionOrigin.drill and decision.value == attacker


async def test_a_demo_site_pointed_elsewhere_stops_receiving_the_demo_traffic(session, http):
    stock = await _stock(session)
    stock.is_demo = False
    session.add(stock)
    await session.commit()
    await http.get("/demo/stock/")
    assert (await session.exec(select(TrafficRequest))).all() == []
