"""Agent records: the four platform agents' status and threats blocked."""

from __future__ import annotations

from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from secdash.ai.agents import AGENTS, PLATFORM_AGENT_IDS
from secdash.models import AgentRecord, utcnow

STATUSES = ("monitoring", "fighting", "analyzing", "secured")


async def list_agents(*, session: AsyncSession) -> list[AgentRecord]:
    """The platform agents' records, created (status monitoring) on first read."""
    rows = {row.id: row for row in await session.exec(select(AgentRecord).order_by(col(AgentRecord.id)))}
    missing = [agent_id for agent_id in PLATFORM_AGENT_IDS if agent_id not in rows]
    for agent_id in missing:
        rows[agent_id] = AgentRecord(id=agent_id, agent_name=AGENTS[agent_id].name)
        session.add(rows[agent_id])
    if missing:
        await session.commit()
    return [rows[agent_id] for agent_id in PLATFORM_AGENT_IDS]


# A platform site's status, as its agent's status: under attack or down means fighting.
STATUS_OF_SITE = {"critical": "fighting", "warning": "analyzing", "secure": "secured"}


async def follow_site_status(*, session: AsyncSession, site_name: str, site_status: str) -> None:
    """Set the agent of the platform a site belongs to (by name) from the site's new status (caller commits)."""
    agent_id = site_name.strip().lower()
    if agent_id not in PLATFORM_AGENT_IDS or site_status not in STATUS_OF_SITE:
        return
    record = await session.get(AgentRecord, agent_id) or AgentRecord(id=agent_id, agent_name=AGENTS[agent_id].name)
    record.status = STATUS_OF_SITE[site_status]
    record.updated_at = utcnow()
    session.add(record)
