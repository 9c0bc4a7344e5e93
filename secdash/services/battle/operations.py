"""Battle Station's operations as they are read, and the records a drill keeps: the operation's public view, the
list, one operation, the running drills, and the one "still running" rule (spec section 4: a drill runs while its
job does, for at most DURATION_SECONDS from its start).

Reads never write: an operation still marked running whose job has ended reads as stopped (`_as_read`); the job's
end hook (drill_job._ended) is what closes it.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from secdash.ai.agents import PLATFORM_AGENT_IDS
from secdash.core.demo_sites import NAME_OF
from secdash.core.unit import mark_changed
from secdash.jobs import store
from secdash.models import AgentRecord, AgentStatus, BattleOperation, OperationStatus, Site, as_utc, utcnow
from secdash.models.battle_public import ActiveBattlePublic, MitreTechnique, OperationPublic, RunCounts
from secdash.services.battle import attacks, defense, scoring
from secdash.services.errors import Invalid, NotFound

KIND = "drill"
TOPIC = defense.TOPIC  # "battle": operations, active drills and defenses
DURATION_SECONDS = 300  # spec section 9: default battle duration
INTERRUPTED = "The drill's worker stopped before it finished (the server stopped during it)"
LIST_LIMIT = 50
MAX_LIST_LIMIT = 200
SITE_NAMES = NAME_OF  # slug -> the name users see (core/demo_sites.py)


def still_running(start_time: datetime, now: datetime | None = None) -> bool:
    """Whether a drill started at `start_time` still counts as running (its job running too): until its duration
    has run out (spec section 4: 300 s from its start). The one rule for the active list and the page."""
    return ((now or utcnow()) - as_utc(start_time)).total_seconds() < DURATION_SECONDS


def _technique(attack_type: str) -> MitreTechnique:
    technique = attacks.get(attack_type).technique
    return MitreTechnique(id=technique.id, name=technique.name, url=technique.url)


def _run_counts(stored: dict[str, Any]) -> RunCounts:
    counts = scoring.counts_of(stored)
    return RunCounts(
        attack_sent=counts.attack_sent,
        attack_blocked=counts.attack_blocked,
        benign_sent=counts.benign_sent,
        benign_blocked=counts.benign_blocked,
        damage={str(k): int(v) for k, v in (stored.get("damage") or {}).items()},
    )


def operation_public(op: BattleOperation) -> OperationPublic:
    assert op.id is not None
    after = scoring.counts_of(op.after)
    measured = scoring.score(after) if after.attack_sent else None
    return OperationPublic(
        id=op.id,
        attack_type=op.attack_type,
        label=attacks.label(op.attack_type),
        status=op.status,
        effectiveness=op.effectiveness,
        defense_strategy=op.defense_strategy,
        defense_code=op.defense_code,
        attack_source=op.attack_source,
        timestamp=op.started_at,
        finished_at=op.finished_at,
        site=op.site,
        site_name=SITE_NAMES.get(op.site, op.site),
        agent_id=op.agent_id,
        simulated=op.simulated,
        mitre=_technique(op.attack_type),
        baseline=_run_counts(op.baseline),
        after=_run_counts(op.after),
        block_rate=round(measured.block_rate, 4) if measured else None,
        benign_pass_rate=round(measured.benign_pass_rate, 4) if measured else None,
        provider=op.provider,
        model=op.model,
        error=op.error,
        job_id=op.job_id,
    )


async def site_id(session: AsyncSession, slug: str) -> int | None:
    return (await session.exec(select(Site.id).where(Site.default_slug == slug))).first()


async def set_agent(session: AsyncSession, slug: str, *, status: str) -> None:
    await _ensure_agents(session)
    record = await session.get(AgentRecord, slug)
    if record is None:
        return
    record.status = AgentStatus(status)
    record.updated_at = utcnow()
    session.add(record)
    mark_changed(session, TOPIC)


async def _ensure_agents(session: AsyncSession) -> None:
    from secdash.services.agents import agents as agent_records  # agents reads sites; imported where needed

    missing = [a for a in PLATFORM_AGENT_IDS if await session.get(AgentRecord, a) is None]
    if missing:
        await agent_records._create_missing(session, missing)  # noqa: SLF001 (one module owns record creation)


def parse_limit(value: Any) -> int:
    if value in (None, ""):
        return LIST_LIMIT
    try:
        limit = int(value)
    except (TypeError, ValueError):
        raise Invalid("limit must be a whole number") from None
    if not 1 <= limit <= MAX_LIST_LIMIT:
        raise Invalid(f"limit must be between 1 and {MAX_LIST_LIMIT}")
    return limit


async def list_operations(*, session: AsyncSession, limit: int = LIST_LIMIT) -> list[OperationPublic]:
    """Operations newest first (a running one whose job has ended reads as stopped: `_as_read`)."""
    rows = await session.exec(
        select(BattleOperation).order_by(col(BattleOperation.started_at).desc(), col(BattleOperation.id).desc()).limit(limit)
    )
    return [operation_public(await _as_read(session, op)) for op in rows]


async def get_operation(*, session: AsyncSession, operation_id: int) -> OperationPublic:
    op = await session.get(BattleOperation, operation_id)
    if op is None:
        raise NotFound("no defense operation with this id")
    return operation_public(await _as_read(session, op))


async def active_drills(*, session: AsyncSession) -> list[ActiveBattlePublic]:
    """Running drills (spec: attackType, defenseCode, startTime, duration), oldest first: a drill runs while its
    job does (a job that ended without closing its operation leaves nothing running) and `still_running` says so."""
    rows = list(
        await session.exec(
            select(BattleOperation).where(BattleOperation.status == OperationStatus.running).order_by(col(BattleOperation.id))
        )
    )
    out = []
    for op in rows:
        assert op.id is not None
        job = await store.get(session, op.job_id) if op.job_id else None
        if job is None or not store.is_active(job) or not still_running(op.started_at):
            continue
        progress = job.progress or {}
        out.append(
            ActiveBattlePublic(
                id=op.id,
                operation_id=op.id,
                job_id=op.job_id,
                attack_type=op.attack_type,
                label=attacks.label(op.attack_type),
                site=op.site,
                defense_code=op.defense_code,
                start_time=op.started_at,
                duration=DURATION_SECONDS,
                phase=str(progress.get("phase", "queued")),
                percent=int(progress.get("percent", 0) or 0),
                simulated=op.simulated,
            )
        )
    return out


async def _as_read(session: AsyncSession, op: BattleOperation) -> BattleOperation:
    """The operation as readers see it. One still marked running whose job has ended (or is gone) reads as
    stopped, the way the job's end hook (`_ended`) closes it; the stored row is left alone (reads never write),
    and a detached copy is returned so the session has nothing to flush."""
    if op.status != OperationStatus.running:
        return op
    job = await store.get(session, op.job_id) if op.job_id else None
    if job is not None and store.is_active(job):
        return op
    shown = BattleOperation.model_validate(op.model_dump())
    shown.status, shown.error = OperationStatus.stopped, op.error or INTERRUPTED
    shown.finished_at = (job.finished_at if job else None) or op.finished_at
    return shown
