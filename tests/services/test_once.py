""" "Exactly one" rules held by the database: concurrent first calls, each with its own session."""

from __future__ import annotations

import asyncio
import threading

import pytest
from sqlalchemy import func
from sqlmodel import select

from secdash.ai.agents import PLATFORM_AGENT_IDS
from secdash.core.db import session_scope
from secdash.jobs import runner
from secdash.models import AgentRecord, HistoryLog, Job, ScanView, Site
from secdash.services.agents import agents
from secdash.services.errors import Conflict
from secdash.services.monitoring import sites
from secdash.services.scanning import scans
from tests.factories import make_user
from tests.support.scanning import in_a_thread


async def _count(session, model) -> int:
    return (await session.exec(select(func.count()).select_from(model))).one()


async def test_concurrent_first_loads_create_the_default_sites_once(session, settings):
    async def first_load() -> list[Site]:
        async with session_scope() as own:
            return await sites.init_default_sites(session=own, settings=settings)

    results = await asyncio.gather(*(first_load() for _ in range(3)))
    assert await _count(session, Site) == 4
    assert all(len(result) == 4 for result in results)
    names = sorted(site.name for site in (await session.exec(select(Site))).all())
    assert names == ["Gem", "Shares", "Stock", "Tour"]
    created = (await session.exec(select(HistoryLog).where(HistoryLog.action == "Default sites created"))).all()
    assert len(created) == 1


async def test_workers_starting_together_create_the_demo_sites_once_at_this_servers_port(session, settings, monkeypatch):
    """Each worker process seeds the demo sites as it starts (where this server serves them); together, once."""
    monkeypatch.setattr(settings, "PORT", 4711)
    monkeypatch.setattr(settings, "DEMO_BASE_URL", "")
    await asyncio.gather(*(sites.seed_default_sites() for _ in range(3)))
    await sites.seed_default_sites()  # a restart: nothing more
    seeded = (await session.exec(select(Site).order_by(Site.id))).all()
    assert [(site.name, site.url) for site in seeded] == [
        (name, f"http://127.0.0.1:4711/demo/{name.lower()}/") for name in ("Stock", "Tour", "Gem", "Shares")
    ]


async def test_default_sites_come_back_when_all_were_removed(session, settings):
    first = await sites.init_default_sites(session=session, settings=settings)
    for site in first:
        await session.delete(site)
    await session.commit()
    assert len(await sites.init_default_sites(session=session, settings=settings)) == 4


async def test_concurrent_first_reads_of_the_agent_list_create_each_agent_once(session):
    async def first_read() -> list[AgentRecord]:
        async with session_scope() as own:
            return await agents.list_agents(session=own)

    results = await asyncio.gather(first_read(), first_read())
    assert [[row.id for row in result] for result in results] == [list(PLATFORM_AGENT_IDS)] * 2
    assert await _count(session, AgentRecord) == len(PLATFORM_AGENT_IDS) == 4


async def test_agent_status_followed_before_the_first_read(session):
    await agents.follow_site_status(session=session, site_name="Gem", site_status="critical")
    await session.commit()
    rows = {row.id: row.status for row in await agents.list_agents(session=session)}
    assert rows["gem"] == "fighting" and len(rows) == 4


@pytest.fixture
def code_dir(tmp_path, settings, monkeypatch):
    (tmp_path / "gem").mkdir()
    (tmp_path / "gem" / "keys.py").write_text('AWS = "AKIAZ7QWERTYU2ASDF3G"\n')
    monkeypatch.setattr(settings, "SCAN_PATHS", str(tmp_path))
    return tmp_path


async def test_two_scans_started_at_the_same_moment_run_once(session, code_dir, monkeypatch):
    admin = await make_user(session, "root@example.com", role="admin")
    release = threading.Event()  # the first scan stays running until both starts have answered
    monkeypatch.setattr(scans, "scan_file_bounded", in_a_thread(lambda target, scan_type: release.wait(30) and []))

    async def start() -> ScanView:
        async with session_scope() as own:
            return await scans.start_scan(session=own, actor=admin, scan_type="quick")

    results = await asyncio.gather(start(), start(), return_exceptions=True)
    release.set()
    for result in results:
        if isinstance(result, ScanView):
            await runner.wait_for(result.id, timeout=60)
    assert sorted(type(result).__name__ for result in results) == ["Conflict", "ScanView"]
    assert [str(r) for r in results if isinstance(r, Conflict)] == ["A scan is already running"]
    assert await _count(session, Job) == 1
    started = (await session.exec(select(HistoryLog).where(HistoryLog.action == "Code scan started"))).all()
    assert len(started) == 1


async def test_the_database_refuses_a_second_active_job_with_the_same_key(session):
    session.add(Job(kind="scan", status="running", singleton_key="scan"))
    await session.commit()
    for status in ("queued", "running", "stopping"):
        session.add(Job(kind="scan", status=status, singleton_key="scan"))
        with pytest.raises(Exception, match="(?i)unique"):
            await session.commit()
        await session.rollback()
    session.add(Job(kind="scan", status="done", singleton_key="scan"))  # finished jobs keep their key freely
    session.add(Job(kind="scan", status="running", singleton_key=None))
    await session.commit()
    assert await _count(session, Job) == 3
