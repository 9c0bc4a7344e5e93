"""The drill job (kind "drill"): baseline run, the agent's defense validated and deployed, re-run, score; and
closing the operation (the result, the events, the agent and History), also when the job ends without the drill
closing it (its end hook). services/battle/drills.py starts it; the steps are described there.
"""

from __future__ import annotations

from typing import Any

from sqlmodel.ext.asyncio.session import AsyncSession

from secdash.ai.agents import AGENTS
from secdash.ai.base import LLMError
from secdash.ai.tasks.defense_plan import DefensePlan, DefensePlanTask
from secdash.core.config import get_settings
from secdash.core.db import session_scope
from secdash.core.unit import commit, mark_changed
from secdash.jobs import JobContext, JobEnding, register
from secdash.models import (
    BattleOperation,
    EventSeverity,
    EventSource,
    JobLevel,
    LogCategory,
    LogSeverity,
    OperationStatus,
    User,
    UserPublic,
    utcnow,
)
from secdash.services import audit
from secdash.services.agents import activities, ai_calls
from secdash.services.alerting import signals
from secdash.services.battle import attacks, corpora, defense, recipes, request_log, scoring, sender
from secdash.services.battle.defense import DefenseConfig
from secdash.services.battle.operations import INTERRUPTED, KIND, SITE_NAMES, TOPIC, set_agent, site_id
from secdash.services.errors import DomainError, Invalid
from secdash.services.problems import events

PHASES = {"baseline": (0, 45), "defense": (45, 55), "after": (55, 100)}


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
        site_ref = await site_id(session, op.site)
        if blocked and not op.simulated:  # real blocks of a drill someone started: counted
            events.record_blocked_threat(
                session,
                description=f"{site}'s defense blocked {blocked} {label} requests in drill #{op_id}",
                source=EventSource.drill.value,
                site_id=site_ref,
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
        await set_agent(session, op.site, status="secured" if status == OperationStatus.defended else "analyzing")
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
