"""Simulated threats (spec section 4): every 15 s, while no drill runs, a 30% chance that an attack type is
picked at random; its announcement is shown to every open Battle Station page ("THREAT DETECTED") and, 1 s
later, a real drill of that type starts, marked simulated.

The spec makes this part of the Battle Station page's state: it runs only while at least one signed-in user
has Battle Station open (each open page says so every WATCH_EVERY_SECONDS; a page silent for WATCH_SECONDS is
gone), and never before the demo sites exist. What a simulated drill measures shows on Battle Station and in
History; no counter reads it (services/battle/drill_job.py).

One producer per deployment (a leader lock), never one per browser tab. SECDASH_SIMULATION=off (or
SECDASH_THREAT_SIMULATION=off for this producer alone) turns it off.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import random
from datetime import datetime
from typing import Any

from sqlmodel.ext.asyncio.session import AsyncSession

from secdash.core.config import get_settings
from secdash.core.db import session_scope
from secdash.core.leader import run_as_leader
from secdash.core.unit import commit, mark_changed
from secdash.models import LiveSnapshot, utcnow
from secdash.services.battle import attacks, drills, operations
from secdash.services.errors import DomainError

log = logging.getLogger(__name__)

SNAPSHOT = "battle-threat"
WATCHERS = "battle-watchers"  # {a hash of the tab: when it last said it has Battle Station open}
EVERY_SECONDS = 15
CHANCE = 0.3
START_DELAY_SECONDS = 1
WATCH_EVERY_SECONDS = 10
WATCH_SECONDS = 30


def _tab_key(tab: str) -> str:
    return hashlib.sha256(tab.encode()).hexdigest()[:16]  # never the client token itself


async def note_watching(tab: str) -> None:
    """A signed-in user's open Battle Station page (its tab) is watching; called by the page every
    WATCH_EVERY_SECONDS. Keeps one small row: tabs silent for WATCH_SECONDS are dropped."""
    now = utcnow()
    async with session_scope() as session:
        row = await session.get(LiveSnapshot, WATCHERS) or LiveSnapshot(name=WATCHERS)
        seen = {
            key: at for key, at in (row.data or {}).items() if (now - datetime.fromisoformat(at)).total_seconds() < WATCH_SECONDS
        }
        row.data, row.updated_at = seen | {_tab_key(tab): now.isoformat()}, now
        session.add(row)
        await commit(session)


async def watched() -> bool:
    """Whether a signed-in user has Battle Station open (a page said so within WATCH_SECONDS)."""
    now = utcnow()
    async with session_scope() as session:
        row = await session.get(LiveSnapshot, WATCHERS)
        return any(
            (now - datetime.fromisoformat(at)).total_seconds() < WATCH_SECONDS
            for at in ((row.data if row else None) or {}).values()
        )


def made_up_source(rng: random.Random) -> str:
    """The claimed source of a simulated attack: a documentation-range address (RFC 5737), never contacted."""
    network = rng.choice(("192.0.2", "198.51.100", "203.0.113"))
    return f"{network}.{rng.randint(1, 254)}"


async def latest_announcement(session: AsyncSession) -> dict[str, Any] | None:
    """The newest simulated threat ({attackType, label, source, at, operationId}), or None."""
    row = await session.get(LiveSnapshot, SNAPSHOT)
    return dict(row.data) if row and row.data else None


async def announce(session: AsyncSession, attack_type: str, source: str) -> dict[str, Any]:
    data = {
        "attackType": attack_type,
        "label": attacks.label(attack_type),
        "source": source,
        "at": utcnow().isoformat().replace("+00:00", "Z"),
        "simulated": True,
        "operationId": None,
    }
    row = await session.get(LiveSnapshot, SNAPSHOT) or LiveSnapshot(name=SNAPSHOT)
    row.data, row.updated_at = data, utcnow()
    session.add(row)
    mark_changed(session, operations.TOPIC)
    await commit(session)
    return data


async def tick(rng: random.Random, *, delay: float = START_DELAY_SECONDS) -> int | None:
    """One 15-second turn: maybe announce a threat and start its drill; the operation id, or None."""
    if not await watched():
        return None  # nobody is watching Battle Station
    async with session_scope() as session:
        if not await drills.platform_sites_exist(session):
            return None  # a fresh install: the sites a drill attacks are not there yet
        if await operations.active_drills(session=session):
            return None  # only while idle
    if rng.random() >= CHANCE:
        return None
    attack_type = rng.choice(attacks.IDS)
    source = made_up_source(rng)
    async with session_scope() as session:
        await announce(session, attack_type, source)
    await asyncio.sleep(delay)
    try:
        async with session_scope() as session:
            op = await drills.start_drill(
                session=session, actor=None, attack_type=attack_type, attack_source=source, simulated=True
            )
            row = await session.get(LiveSnapshot, SNAPSHOT)
            if row is not None:
                row.data = {**row.data, "operationId": op.id}
                session.add(row)
                await commit(session)
            return op.id
    except DomainError as exc:  # a drill started meanwhile on that site
        log.info("simulated %s threat not started: %s", attack_type, exc.message)
        return None


async def run_threat_simulation(seed: int | None = None) -> None:
    """Lifespan task: the simulated-threat producer (one per deployment)."""
    if not get_settings().threat_simulation_enabled:
        return
    rng = random.Random(seed)

    async def lead(lost: asyncio.Event) -> None:
        while not lost.is_set():
            await asyncio.sleep(EVERY_SECONDS)
            try:
                await tick(rng)
            except Exception:
                log.exception("simulated threat failed")

    await run_as_leader("battle-threats", lead)
