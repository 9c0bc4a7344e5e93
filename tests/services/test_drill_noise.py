"""Numbers that tell the truth (issue 23 items 3-4): drills open no problem an operator must close, simulated
drills count nowhere, the threat simulation runs only while a signed-in user watches Battle Station and the
sites exist, and "threats blocked" is one figure on every screen."""

from __future__ import annotations

import random

import pytest
from sqlmodel import select

from secdash.jobs import runner
from secdash.models import BattleOperation, SecurityEvent
from secdash.models.public import DefenseAgentPublic
from secdash.services.agents import agents, ai_systems
from secdash.services.battle import drills, threats
from secdash.services.problems import events
from secdash.services.reads import dashboard
from tests.factories import make_user
from tests.support.battle import in_process_demo_sites


class Always(random.Random):
    def random(self):
        return 0.0


@pytest.fixture
async def demo(session, monkeypatch, settings):
    return await in_process_demo_sites(session, monkeypatch, settings)


async def _run(session, actor, attack_type="xss", **kwargs) -> BattleOperation:
    op = await drills.start_drill(session=session, actor=actor, attack_type=attack_type, **kwargs)
    op_id, job_id = op.id, op.job_id
    assert await events.count_open(session=session) == 0  # a running drill is not a problem to close
    await runner.wait_for(job_id, timeout=120)
    session.expire_all()
    return await session.get(BattleOperation, op_id)


async def _blocked_everywhere(session) -> dict[str, int]:
    overview = await dashboard.overview(session=session)
    platforms = (await ai_systems.read(session=session)).platforms
    center = [DefenseAgentPublic.of(record, blocked) for record, blocked in await agents.with_threats_blocked(session=session)]
    return {
        "dashboard": overview["threatsBlocked"],
        "ai_systems": sum(p.threats_blocked for p in platforms),
        "center": sum(agent.threats_blocked for agent in center),
        "events": await events.count_threats_blocked(session=session),
    }


async def test_a_drill_opens_no_problem_and_stays_out_of_the_default_problem_view(session, demo):
    admin = await make_user(session, "root@example.com", role="admin")
    op = await _run(session, admin, agent_id="gem")
    assert op.status == "defended", op.error
    assert await events.count_open(session=session) == 0
    default_view = await events.list_events(session=session, include_drills=False)
    assert [e for e, _ in default_view if e.source == "drill"] == []
    with_drills = await events.list_events(session=session)
    assert any("drill #" in e.description for e, _ in with_drills)  # the record stays, with the filter


async def test_a_users_drill_is_one_figure_on_every_screen(session, demo):
    admin = await make_user(session, "root@example.com", role="admin")
    op = await _run(session, admin, agent_id="gem")
    blocked = (
        await session.exec(select(SecurityEvent.blocked_requests).where(SecurityEvent.event_type == "threat_blocked"))
    ).one()
    assert blocked > 0 and op.status == "defended"
    assert await _blocked_everywhere(session) == dict.fromkeys(("dashboard", "ai_systems", "center", "events"), blocked)
    gem = next(p for p in (await ai_systems.read(session=session)).platforms if p.id == "gem")
    assert gem.threats_blocked == blocked


async def test_a_simulated_drill_counts_nowhere(session, demo):
    op = await _run(session, None, agent_id="gem", simulated=True)
    assert op.simulated and op.status == "defended", op.error
    assert await _blocked_everywhere(session) == dict.fromkeys(("dashboard", "ai_systems", "center", "events"), 0)
    assert (await session.exec(select(SecurityEvent))).all() == []


async def test_the_threat_simulation_waits_for_a_watcher(session, demo):
    assert await threats.tick(Always(7), delay=0) is None  # nobody has Battle Station open
    await threats.note_watching("tab-1")
    op_id = await threats.tick(Always(7), delay=0)
    assert op_id is not None
    op = await session.get(BattleOperation, op_id)
    await runner.wait_for(op.job_id, timeout=120)


async def test_the_threat_simulation_waits_for_the_sites(session):
    await threats.note_watching("tab-1")
    assert await threats.tick(Always(7), delay=0) is None  # a fresh install: no sites yet
    assert (await session.exec(select(BattleOperation))).all() == []


async def test_a_watcher_that_goes_quiet_stops_the_simulation(session, demo, monkeypatch):
    await threats.note_watching("tab-1")
    assert await threats.watched()
    monkeypatch.setattr(threats, "WATCH_SECONDS", 0)
    assert not await threats.watched()
