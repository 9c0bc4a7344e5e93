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

This module starts drills (who may, against which site, defended by which agent); the job itself is
drill_job.py, and operations.py reads operations and running drills.
"""

from __future__ import annotations

import random
from typing import Any

from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from secdash.ai.agents import PLATFORM_AGENT_IDS
from secdash.core.unit import commit, mark_changed
from secdash.jobs import runner, store
from secdash.models import AttackType, BattleOperation, LogCategory, LogSeverity, OperationStatus, Site, UserPublic
from secdash.models.battle_public import DefendReplyPublic
from secdash.services import audit
from secdash.services.battle import attacks, defense, drill_job  # noqa: F401  (registers the "drill" job kind it enqueues)
from secdash.services.battle.operations import DURATION_SECONDS, KIND, SITE_NAMES, TOPIC, set_agent
from secdash.services.errors import Conflict, Invalid, Unavailable
from secdash.services.identity.permissions import require_admin

MAX_SOURCE_LENGTH = 64
_rng = random.Random()  # the defender of a request that names none


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


async def platform_sites_exist(session: AsyncSession) -> bool:
    """Whether the demo sites drills attack are monitored sites yet (none on a fresh install)."""
    query = select(Site.id).where(col(Site.default_slug).in_(PLATFORM_AGENT_IDS)).limit(1)
    return (await session.exec(query)).first() is not None


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
    await set_agent(session, slug, status="fighting")
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
