"""What the Battle Station page reads in one short session: the operations, the running drills, the four demo
sites' defenses, the newest simulated-threat announcement and the shown drill's log after the last line the
page has.

The page's state opens no session itself (state/battle.py calls `read_station` through nothing but this
function); one session per refresh keeps a page refresh to one connection however many parts it reads.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from sqlmodel.ext.asyncio.session import AsyncSession

from secdash.core import notify
from secdash.core.db import session_scope
from secdash.jobs import store as jobs_store
from secdash.models import LogCategory, UserPublic, as_utc
from secdash.models.battle_public import ActiveBattlePublic, OperationPublic
from secdash.models.jobs_public import JobLogPublic
from secdash.services.battle import defense, operations, threats
from secdash.services.identity import permissions

LOG_LINES_PER_READ = 200  # a page keeps the newest few of these


@dataclasses.dataclass(frozen=True)
class SiteDefense:
    """A demo site's current defense as the page lists it."""

    slug: str
    revision: int
    source: str  # default | reset | drill | admin
    operation_id: str | None
    updated_at: str  # ISO, UTC; empty for the weak default never deployed


@dataclasses.dataclass(frozen=True)
class StationRead:
    operations: list[OperationPublic]
    active: list[ActiveBattlePublic]
    defenses: list[SiteDefense]
    announcement: dict[str, Any] | None
    log_job: int  # the job whose lines `log` holds (0: none)
    log: list[JobLogPublic]


async def operations_for(
    *,
    session: AsyncSession,
    viewer: UserPublic,
    limit: int = operations.LIST_LIMIT,
) -> list[OperationPublic]:
    """The operations the viewer may read (permissions.fully_readable: the rule History Logs uses too), newest first."""
    if not permissions.may_read_all(viewer, LogCategory.battle):
        return []
    return await operations.list_operations(session=session, limit=limit)


async def read_station(
    *, viewer: UserPublic, log_job: int = 0, log_after: int = 0, limit: int = operations.LIST_LIMIT
) -> StationRead:
    """Everything the page shows the viewer. `log_job`/`log_after`: the drill log the page holds and its last line;
    lines of that job are read after it. With no job given, the oldest running drill's log is read from its start."""
    async with session_scope() as session:
        listed = await operations_for(session=session, viewer=viewer, limit=limit)
        readable = permissions.may_read_all(viewer, LogCategory.battle)
        active = await operations.active_drills(session=session) if readable else []
        defenses = []
        for slug in defense.DEMO_SLUGS:
            view = await defense.get_defense(session, slug)
            defenses.append(
                SiteDefense(
                    slug=slug,
                    revision=view.revision,
                    source=view.source,
                    operation_id=view.operation_id,
                    updated_at=as_utc(view.updated_at).isoformat() if view.updated_at else "",
                )
            )
        announcement = await threats.latest_announcement(session)
        job_id = (log_job or next((a.job_id for a in active if a.job_id), 0) or 0) if readable else 0
        lines: list[JobLogPublic] = []
        if job_id and not await _is_drill(session, job_id):
            job_id = 0  # this page shows drill logs only (other kinds may be private to their owner)
        if job_id:
            after = log_after if job_id == log_job else 0
            rows, _last = await notify.read_since(
                lambda after, limit: jobs_store.logs_since(session, job_id, after, limit),
                after,
                seq_of=lambda line: line.seq,
                limit=LOG_LINES_PER_READ,
            )
            lines = [JobLogPublic.of(row) for row in rows]
    return StationRead(operations=listed, active=active, defenses=defenses, announcement=announcement, log_job=job_id, log=lines)


async def _is_drill(session, job_id: int) -> bool:
    job = await jobs_store.get(session, job_id)
    return job is not None and job.kind == operations.KIND
