"""Agent records: the four platform agents' status; their threats blocked, counted from the events."""

from __future__ import annotations

from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from secdash.ai.agents import AGENTS, PLATFORM_AGENT_IDS
from secdash.models import AgentRecord, AgentStatus, Site, utcnow
from secdash.services.once import insert_missing
from secdash.services.problems import events

STATUSES = ("monitoring", "fighting", "analyzing", "secured")


async def list_agents(*, session: AsyncSession) -> list[AgentRecord]:
    """The platform agents' records, created (status monitoring) on first read."""
    rows = {row.id: row for row in await session.exec(select(AgentRecord).order_by(col(AgentRecord.id)))}
    missing = [agent_id for agent_id in PLATFORM_AGENT_IDS if agent_id not in rows]
    if missing:
        await _create_missing(session, missing)
        await session.commit()
        rows = {row.id: row for row in await session.exec(select(AgentRecord).order_by(col(AgentRecord.id)))}
    return [rows[agent_id] for agent_id in PLATFORM_AGENT_IDS]


async def _create_missing(session: AsyncSession, agent_ids: list[str]) -> None:
    """Create agent records (status monitoring) unless another session already has: the primary key decides."""
    await insert_missing(session, [AgentRecord(id=agent_id, agent_name=AGENTS[agent_id].name) for agent_id in agent_ids], "id")


async def with_threats_blocked(*, session: AsyncSession) -> list[tuple[AgentRecord, int]]:
    """The platform agents' records, each with the requests its platform's site really blocked (the same
    count as AI Systems and the Dashboard: events.counts_by_site)."""
    records = await list_agents(session=session)
    site_of = {
        slug: site_id
        for slug, site_id in await session.exec(
            select(Site.default_slug, Site.id).where(col(Site.default_slug).in_(PLATFORM_AGENT_IDS))
        )
        if slug is not None and site_id is not None  # never None: the slug is filtered, the id is the key
    }
    counts = await events.counts_by_site(session=session, site_ids=list(site_of.values()))
    return [(record, counts.get(site_of.get(record.id, -1), events.NO_COUNTS)["blocked"]) for record in records]


# A platform site's status, as its agent's status: under attack or down means fighting.
STATUS_OF_SITE = {"critical": AgentStatus.fighting, "warning": AgentStatus.analyzing, "secure": AgentStatus.secured}


async def follow_site_status(*, session: AsyncSession, site_name: str, site_status: str) -> None:
    """Set the agent of the platform a site belongs to (by name) from the site's new status (caller commits)."""
    agent_id = site_name.strip().lower()
    if agent_id not in PLATFORM_AGENT_IDS or site_status not in STATUS_OF_SITE:
        return
    record = await session.get(AgentRecord, agent_id)
    if record is None:
        await _create_missing(session, [agent_id])
        record = await session.get(AgentRecord, agent_id, populate_existing=True)
        assert record is not None
    record.status = STATUS_OF_SITE[site_status]
    record.updated_at = utcnow()
    session.add(record)
