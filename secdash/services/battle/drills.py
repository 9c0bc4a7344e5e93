"""Battle Station drills: a job of kind "drill" that attacks one bundled demo site, has its agent write a
defense, deploys it, attacks again and scores the defense from what the demo site logged.

A drill, step by step (each step is a line in the job's log, which the page streams):
1. baseline: the attack corpus of its type plus a benign corpus (services/battle/corpora.py) are sent to
   the demo site over loopback HTTP (services/battle/sender.py), bounded in count and rate;
2. the agent (the configured model, or the offline engine's recipe) reads what got through and writes a
   defense: a strategy and a DefenseConfig for this attack type (data, never code). The server validates
   it (schema, regex safety, limits: services/battle/defense.py), merges it into the site's current defense
   and deploys it; an answer that is refused gets one retry with the reason, then the drill fails;
3. the same corpora again; the score (services/battle/scoring.py) comes from this run's counts.

At most one drill runs per demo site (the job's singleton key); admins start drills, everyone watches.
Each drill writes History Logs entries (battle category) and, at the end, a closed threat_blocked record with
the requests the defense really blocked (what "Threats Blocked" counts, on every screen). A drill opens no
problem an operator must close: its outcome lives on Battle Station. A simulated drill (the threat simulation's)
records nothing that any counter reads. The site's agent is "fighting" while its drill runs.
"""

from __future__ import annotations

import logging
import random
from datetime import datetime
from typing import Any

from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from secdash.ai.agents import AGENTS, PLATFORM_AGENT_IDS
from secdash.ai.base import LLMError
from secdash.ai.tasks.defense_plan import DefensePlan, DefensePlanTask
from secdash.core.config import get_settings
from secdash.core.db import session_scope
from secdash.core.unit import commit, mark_changed
from secdash.jobs import JobContext, JobEnding, register, runner, store
from secdash.models import (
    AgentRecord,
    AgentStatus,
    AttackType,
    BattleOperation,
    EventSeverity,
    EventSource,
    JobLevel,
    LogCategory,
    LogSeverity,
    OperationStatus,
    Site,
    User,
    UserPublic,
    as_utc,
    utcnow,
)
from secdash.models.battle_public import ActiveBattlePublic, DefendReplyPublic, MitreTechnique, OperationPublic, RunCounts
from secdash.services import audit
from secdash.services.agents import activities, ai_calls
from secdash.services.alerting import signals
from secdash.services.battle import attacks, corpora, defense, recipes, request_log, scoring, sender
from secdash.services.battle.defense import DefenseConfig
from secdash.services.errors import Conflict, DomainError, Invalid, NotFound, Unavailable
from secdash.services.identity.permissions import require_admin
from secdash.services.problems import events

log = logging.getLogger(__name__)

KIND = "drill"
TOPIC = defense.TOPIC  # "battle": operations, active drills and defenses
DURATION_SECONDS = 300  # spec section 9: default battle duration
INTERRUPTED = "The drill's worker stopped before it finished (the server stopped during it)"
MAX_SOURCE_LENGTH = 64
LIST_LIMIT = 50
MAX_LIST_LIMIT = 200
SITE_NAMES = {"stock": "Stock", "tour": "Tour", "gem": "Gem", "shares": "Shares"}
PHASES = {"baseline": (0, 45), "defense": (45, 55), "after": (55, 100)}
_rng = random.Random()  # the defender of a request that names none


# --- starting, listing, reading --------------------------------------------------------------------------


def parse_attack_type(value: Any) -> AttackType:
    if not isinstance(value, str) or value not in attacks.IDS:
        raise Invalid(f"attackType must be one of: {', '.join(attacks.IDS)}")
    return AttackType(value)


def parse_source(value: Any) -> str:
    """The attack's claimed source (the spec's made-up IPv4-like text): shown, never trusted or contacted."""
    if value is None:
        return ""
    if not isinstance(value, str):
        raise Invalid("attackSource must be text")
    value = value.strip()
    if len(value) > MAX_SOURCE_LENGTH or any(not ch.isprintable() for ch in value):
        raise Invalid(f"attackSource must be at most {MAX_SOURCE_LENGTH} printable characters")
    return value


def defender(agent_id: Any = None, rng: random.Random | None = None) -> tuple[str, str]:
    """(demo site slug, agent id) of a drill: the agent the request names, else a random platform agent (spec
    section 7: "a random agent is chosen for a defend request"); a drill attacks its agent's own platform.

    The one rule for the page's attack buttons, the API's defend request and the threat simulation."""
    if agent_id in (None, ""):
        agent = (rng or _rng).choice(PLATFORM_AGENT_IDS)
    elif not isinstance(agent_id, str) or agent_id.strip().lower() not in PLATFORM_AGENT_IDS:
        raise Invalid(f"aiAgentId must be one of: {', '.join(PLATFORM_AGENT_IDS)}")
    else:
        agent = agent_id.strip().lower()
    return defense.check_slug(agent), agent


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


async def platform_sites_exist(session: AsyncSession) -> bool:
    """Whether the demo sites drills attack are monitored sites yet (none on a fresh install)."""
    query = select(Site.id).where(col(Site.default_slug).in_(PLATFORM_AGENT_IDS)).limit(1)
    return (await session.exec(query)).first() is not None


async def _site_id(session: AsyncSession, slug: str) -> int | None:
    return (await session.exec(select(Site.id).where(Site.default_slug == slug))).first()


async def _set_agent(session: AsyncSession, slug: str, *, status: str) -> None:
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


async def start_drill(
    *,
    session: AsyncSession,
    actor: UserPublic | None,
    attack_type: Any,
    attack_source: Any = "",
    agent_id: Any = None,
    simulated: bool = False,
) -> BattleOperation:
    """Start a drill job (admins; `actor=None` only for the server's own threat simulation). Conflict when a
    drill already runs against that demo site."""
    if actor is not None:
        require_admin(actor, "start Battle Station drills")
    elif not simulated:
        raise Invalid("a drill needs an admin or the threat simulation")
    kind = parse_attack_type(attack_type)
    source = parse_source(attack_source)
    slug, agent = defender(agent_id)
    technique = attacks.get(kind.value).technique
    op = BattleOperation(
        attack_type=kind,
        site=slug,
        agent_id=agent,
        attack_source=source,
        simulated=simulated,
        mitre_technique=technique.id,
        started_by=actor.id if actor else None,
    )
    session.add(op)
    await session.flush()
    assert op.id is not None
    try:
        job = await runner.enqueue(
            session,
            kind=KIND,
            owner_user_id=actor.id if actor else None,
            owner_email=actor.email if actor else "threat simulation",
            singleton_key=f"{KIND}:{slug}",
            params={"operationId": op.id, "attackType": kind.value, "site": slug, "agentId": agent},
            progress={"phase": "queued", "percent": 0},
        )
    except store.ActiveJobExists:
        raise Conflict(f"A drill is already running against {SITE_NAMES[slug]}: wait for it to finish") from None
    op.job_id = job.id
    label = attacks.label(kind.value)
    who = actor.email if actor else "the threat simulation"
    audit.record(
        session,
        category=LogCategory.battle,
        action="Drill started",
        severity=LogSeverity.warning,
        description=f"{label} drill against {SITE_NAMES[slug]} started by {who}" + (" (simulated threat)" if simulated else ""),
        actor_user_id=actor.id if actor else None,
        details={
            "operationId": op.id,
            "attackType": kind.value,
            "site": slug,
            "agentId": agent,
            "source": source,
            "mitre": technique.id,
            "simulated": simulated,
        },
    )
    await _set_agent(session, slug, status="fighting")
    mark_changed(session, TOPIC)
    await commit(session)
    await session.refresh(op)
    return op


async def defend(
    *,
    session: AsyncSession,
    actor: UserPublic,
    attack_type: Any,
    attack_source: Any = "",
    agent_id: Any = None,
    timeout: float = DURATION_SECONDS,
) -> DefendReplyPublic:
    """Start a drill and answer when its defense is deployed and measured (the spec's defend request)."""
    op = await start_drill(session=session, actor=actor, attack_type=attack_type, attack_source=attack_source, agent_id=agent_id)
    assert op.id is not None and op.job_id is not None
    try:
        await runner.wait_for(op.job_id, timeout=timeout, poll=0.25)
    except TimeoutError:
        raise Unavailable(f"The drill did not finish within {int(timeout)} s; it goes on (operation {op.id})") from None
    await session.refresh(op)
    if op.status in (OperationStatus.failed, OperationStatus.stopped) or op.effectiveness is None:
        raise Unavailable(op.error or "The drill ended before its defense was measured")
    return DefendReplyPublic(
        defense_code=op.defense_code, code=op.defense_code, effectiveness=op.effectiveness, operation_id=op.id, status=op.status
    )


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


# --- the job ---------------------------------------------------------------------------------------------


def _percent(phase: str, done: int, total: int) -> int:
    low, high = PHASES[phase]
    return low + (high - low) * done // max(total, 1)


def _damage_text(damages: dict[str, int]) -> str:
    return "; ".join(f"{what} x{count}" for what, count in sorted(damages.items(), key=lambda kv: -kv[1])) or "none"


async def _owner(session: AsyncSession, user_id: int | None) -> UserPublic | None:
    user = await session.get(User, user_id) if user_id else None
    return UserPublic.from_user(user) if user else None


class DrillFailed(Exception):
    """The drill cannot go on; the message is shown on the operation and to the user."""


async def _write_defense(
    ctx: JobContext,
    *,
    op_id: int,
    attack_type: str,
    slug: str,
    agent: str,
    owner: UserPublic | None,
    findings: dict[str, Any],
    current: DefenseConfig,
) -> tuple[DefensePlan, DefenseConfig, Any]:
    """Ask the agent for a defense; validate and merge it. One retry with the reason when the answer is refused."""
    settings = get_settings()
    calls = (
        ai_calls.for_user(settings=settings, user=owner, feature="defense_plan", agent=agent)
        if owner
        else ai_calls.for_system(settings=settings, feature="defense_plan", agent=agent)
    )
    task = DefensePlanTask(
        attack_type=attack_type,
        site=SITE_NAMES[slug],
        findings=findings,
        current_config=current.model_dump(mode="json"),
        config_schema=DefenseConfig.model_json_schema(),
        offline_answer=recipes.offline_plan(attack_type, slug, findings),
        agent_id=agent,
        attack_label=attacks.label(attack_type),
    )
    await ctx.log(f"{AGENTS[agent].name} is writing a defense ({calls.name}, {calls.model})")

    def check(plan: DefensePlan) -> DefenseConfig:
        addition = defense.parse_config(plan.config)
        recipes.merge(current, addition)  # the merged defense must be valid too (limits)
        return addition

    async def refused(attempt: int, reason: str) -> None:
        await ctx.log(f"Defense refused by validation (attempt {attempt}): {reason}", JobLevel.warning)

    try:
        plan, addition = await ai_calls.structured_checked(
            calls, task, DefensePlan, check, refusals=(Invalid,), on_refused=refused
        )
    except LLMError as exc:
        raise DrillFailed(f"The AI agent could not write a defense: {exc.message}") from None
    except DomainError as exc:  # the user's AI budget
        raise DrillFailed(exc.message) from None
    except ai_calls.AnswerRefused as exc:
        raise DrillFailed(f"The agent's defense was refused twice: {exc.reason}") from None
    return plan, addition, calls


async def _send(ctx: JobContext, client: Any, slug: str, corpus: Any, op_id: int, run: int, phase: str) -> Any:
    total = len(corpus.requests)
    name = "Baseline" if run == 0 else "Re-run"

    async def on_batch(done: int, _total: int, partial: Any) -> None:
        await ctx.log(
            f"{name}: {done}/{total} requests sent; attack {partial.attack_sent - partial.attack_blocked} through, "
            f"{partial.attack_blocked} blocked; benign {partial.benign_sent - partial.benign_blocked} served, "
            f"{partial.benign_blocked} blocked"
        )
        await ctx.progress(phase=phase, percent=_percent(phase, done, total), sent=done, total=total)

    return await sender.send_corpus(
        client,
        slug,
        corpus,
        operation_id=f"drill-{op_id}-{'baseline' if run == 0 else 'after'}",
        run=run,
        on_batch=on_batch,
        should_stop=ctx.should_stop,
    )


async def _counts(ctx: JobContext, op_id: int, slug: str, run: str, sent: Any) -> request_log.TrafficCounts:
    """The run's counts as the demo site logged them; a request the site could not log (its database was busy)
    is named in the drill's log, since the score counts only what the site logged."""
    async with session_scope() as session:
        counts = await request_log.operation_counts(session, f"drill-{op_id}-{run}", slug)
    missing = (sent.attack_sent + sent.benign_sent) - (counts.attack_sent + counts.benign_sent)
    if missing:
        await ctx.log(
            f"{missing} request(s) of this run were answered but not logged by the demo site (its database "
            "was busy); the score counts what the site logged",
            JobLevel.warning,
        )
    return counts


async def _ended(ending: JobEnding) -> None:
    """The job ended without the drill closing its operation (a crash, the server stopping, a vanished worker)."""
    if ending.status == "interrupted":
        await _close(int(ending.params["operationId"]), status=OperationStatus.stopped, error=INTERRUPTED)
    else:
        await _close(
            int(ending.params["operationId"]),
            status=OperationStatus.failed,
            error="The drill failed on the server (see the server log)",
        )


@register(KIND, topic=TOPIC, shared=True, on_end=_ended)
async def run_drill(ctx: JobContext) -> dict[str, Any]:
    op_id = int(ctx.params["operationId"])
    try:
        return await _run(ctx, op_id)
    except DrillFailed as exc:
        await _close(op_id, status=OperationStatus.failed, error=str(exc))
        await ctx.log(str(exc), JobLevel.error)
        return {"operationId": op_id, "status": "failed"}


async def _run(ctx: JobContext, op_id: int) -> dict[str, Any]:
    attack_type, slug = ctx.params["attackType"], ctx.params["site"]
    agent = ctx.params.get("agentId") or slug
    label = attacks.label(attack_type)
    async with session_scope() as session:
        owner = await _owner(session, ctx.owner_user_id)
        current = (await defense.get_defense(session, slug)).config
    corpus = corpora.corpus(attack_type, slug)
    attack_total = sum(1 for r in corpus.requests if r.traffic == "attack")
    technique = attacks.get(attack_type).technique
    try:
        sender.check_loopback(get_settings().demo_base_url)
    except ValueError as exc:
        raise DrillFailed(f"Drills only attack this machine's demo sites: {exc}") from None
    await ctx.progress(force=True, phase="baseline", percent=0, sent=0, total=len(corpus.requests))
    await ctx.log(
        f"{label} in progress against {SITE_NAMES[slug]} (MITRE ATT&CK {technique.id} {technique.name}): "
        f"{attack_total} attack and {len(corpus.requests) - attack_total} benign requests, at most "
        f"{corpus.concurrency} at once",
        JobLevel.warning,
    )
    async with sender.open_client() as client:
        baseline = await _send(ctx, client, slug, corpus, op_id, 0, "baseline")
        if ctx.honoured_stop:
            await _close(op_id, status=OperationStatus.stopped, error="Stopped during the baseline run")
            return {"operationId": op_id, "status": "stopped"}
        counts_b = await _counts(ctx, op_id, slug, "baseline", baseline)
        if not counts_b.attack_sent:
            unanswered = sum(1 for outcome in baseline.outcomes if outcome.status == 0)
            raise DrillFailed(
                f"The {SITE_NAMES[slug]} demo site logged none of the drill's requests ({unanswered} of "
                f"{len(baseline.outcomes)} got no answer): check SECDASH_DEMO_BASE_URL"
            )
        await ctx.log(
            f"Baseline: {counts_b.attack_passed} of {counts_b.attack_sent} attack requests got through "
            f"({_damage_text(baseline.damages)}); {counts_b.benign_blocked} of {counts_b.benign_sent} benign blocked",
            JobLevel.warning if counts_b.attack_passed else JobLevel.info,
        )
        async with session_scope() as session:
            op = await session.get(BattleOperation, op_id)
            assert op is not None
            op.baseline = scoring.counts_json(counts_b, baseline.damages)
            session.add(op)
            mark_changed(session, TOPIC)
            await commit(session)
        await ctx.progress(force=True, phase="defense", percent=PHASES["defense"][0])
        findings = recipes.findings_summary(attack_type, baseline)
        plan, addition, calls = await _write_defense(
            ctx,
            op_id=op_id,
            attack_type=attack_type,
            slug=slug,
            agent=agent,
            owner=owner,
            findings=findings,
            current=current,
        )
        code = recipes.defense_code(addition, attack_type)
        async with session_scope() as session:
            latest = (await defense.get_defense(session, slug)).config  # as deployed now (another admin may have reset)
            merged = recipes.merge(latest, addition)
            view = await defense.deploy_defense(
                session, slug, merged, source="drill", operation_id=str(op_id), actor_id=owner.id if owner else None
            )
            op = await session.get(BattleOperation, op_id)
            assert op is not None
            op.defense_strategy = plan.strategy[:2000]
            op.defense_code = code
            op.defense_config = addition.model_dump(mode="json")
            op.defense_revision = view.revision
            op.provider, op.model = calls.name[:32], calls.model[:100]
            session.add(op)
            audit.record(
                session,
                category=LogCategory.battle,
                action="Defense deployed",
                description=f"{AGENTS[agent].name} deployed a {label} defense to {SITE_NAMES[slug]} (revision {view.revision})",
                actor_user_id=owner.id if owner else None,
                details={
                    "operationId": op_id,
                    "site": slug,
                    "revision": view.revision,
                    "provider": calls.name,
                    "model": calls.model,
                    "strategy": plan.strategy[:300],
                },
            )
            activities.record(
                session,
                activity_type="patch",
                target=SITE_NAMES[slug],
                description=f"{AGENTS[agent].name} deployed a {label} defense (revision {view.revision})",
            )
            mark_changed(session, TOPIC)
            await commit(session)
        await ctx.log(
            f"Defense deployed to {SITE_NAMES[slug]} (revision {view.revision}): {plan.strategy[:300]}", JobLevel.success
        )
        for line in code.splitlines()[:20]:
            await ctx.log(f"  {line}")
        await ctx.progress(force=True, phase="after", percent=PHASES["after"][0])
        after = await _send(ctx, client, slug, corpus, op_id, 1, "after")
    counts_a = await _counts(ctx, op_id, slug, "after", after)
    if ctx.honoured_stop:
        await _close(
            op_id, status=OperationStatus.stopped, error="Stopped during the re-run", after=counts_a, damages=after.damages
        )
        return {"operationId": op_id, "status": "stopped"}
    result = scoring.score(counts_a)
    status = OperationStatus.defended if result.effectiveness >= scoring.DEFENDED_SCORE else OperationStatus.partial
    await _close(op_id, status=status, after=counts_a, damages=after.damages, effectiveness=result.effectiveness)
    await ctx.progress(force=True, phase="done", percent=100)
    await ctx.log(
        f"Measured: {counts_a.attack_blocked} of {counts_a.attack_sent} attack requests blocked "
        f"({result.block_rate:.0%}), {counts_a.benign_passed} of {counts_a.benign_sent} benign served "
        f"({result.benign_pass_rate:.0%}): effectiveness {result.effectiveness}%",
        JobLevel.success if status == OperationStatus.defended else JobLevel.warning,
    )
    return {"operationId": op_id, "status": status.value, "effectiveness": result.effectiveness}


async def _close(
    op_id: int,
    *,
    status: OperationStatus,
    error: str | None = None,
    after: request_log.TrafficCounts | None = None,
    damages: dict[str, int] | None = None,
    effectiveness: int | None = None,
) -> None:
    """End the operation: its status, counts and score, the events, the agent and the History Logs entry."""
    async with session_scope() as session:
        op = await session.get(BattleOperation, op_id)
        if op is None or op.status != OperationStatus.running:
            return
        op.status, op.error, op.finished_at = status, (error or None) and error[:500], utcnow()
        if after is not None:
            op.after = scoring.counts_json(after, damages)
        op.effectiveness = effectiveness
        session.add(op)
        label, site = attacks.label(op.attack_type), SITE_NAMES[op.site]
        blocked = after.attack_blocked if after is not None and status != OperationStatus.failed else 0
        site_id = await _site_id(session, op.site)
        if blocked and not op.simulated:  # real blocks of a drill someone started: counted
            events.record_blocked_threat(
                session,
                description=f"{site}'s defense blocked {blocked} {label} requests in drill #{op_id}",
                source=EventSource.drill.value,
                site_id=site_id,
                target=site,
                severity=EventSeverity.medium,
                blocked_requests=blocked,
                resolved_note=f"Blocked by the defense deployed in drill #{op_id}",
                details={
                    "operationId": op_id,
                    "attackType": op.attack_type,
                    "blocked": blocked,
                    "attackSent": after.attack_sent if after else 0,
                },
            )
        await _set_agent(session, op.site, status="secured" if status == OperationStatus.defended else "analyzing")
        if effectiveness is not None:
            description = (
                f"{label} drill on {site}: {effectiveness}% effectiveness ({blocked} of "
                f"{after.attack_sent if after else 0} attack requests blocked, "
                f"{after.benign_passed if after else 0} of {after.benign_sent if after else 0} benign served)"
            )
        else:
            description = f"{label} drill on {site} ended {status.value}: {error or 'no defense measured'}"
        audit.record(
            session,
            category=LogCategory.battle,
            action="Drill result" if effectiveness is not None else "Drill failed",
            severity=LogSeverity.info
            if status == OperationStatus.defended
            else (LogSeverity.error if status == OperationStatus.failed else LogSeverity.warning),
            description=description,
            actor_user_id=op.started_by,
            details={
                "operationId": op_id,
                "status": status.value,
                "effectiveness": effectiveness,
                "baseline": op.baseline,
                "after": op.after,
                "mitre": op.mitre_technique,
            },
        )
        if effectiveness is not None and not op.simulated:  # the simulation never pages anyone
            await signals.drill_result(session, site=site, attack=label, effectiveness=effectiveness, operation_id=op_id)
        mark_changed(session, TOPIC)
        await commit(session)
