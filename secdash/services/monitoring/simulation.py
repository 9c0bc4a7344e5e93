"""Simulated signals (live traffic, signups, user scans, AI activity): no real source exists yet.

One producer per deployment advances the simulation and stores a snapshot, so every viewer sees
the same stream; everything it makes is marked simulated. SECDASH_SIMULATION=off turns it off.
Constants are the spec's (section 9).
"""

from __future__ import annotations

import asyncio
import logging
import random
from dataclasses import asdict, dataclass, field
from typing import Any

from sqlmodel.ext.asyncio.session import AsyncSession

from secdash.core.config import get_settings
from secdash.core.db import session_scope
from secdash.core.demo_sites import NAMES
from secdash.core.leader import run_as_leader
from secdash.core.unit import commit, mark_changed
from secdash.models import LiveSnapshot, utcnow
from secdash.services.agents import activities

log = logging.getLogger(__name__)

TOPIC = "traffic"
SNAPSHOT = "simulation"
TRAFFIC_TICK_SECONDS = 3
ACTIVITY_EVERY_SECONDS = 8
USER_SCAN_EVERY_SECONDS = 5
USER_SCAN_CHANCE = 0.3
RPM_RANGE = (8, 16)
ACTIVE_USERS_RANGE = (45, 120)
BANDWIDTH_RANGE = (5, 25)
CAPACITY_DIVISOR = 50
SIGNUP_EVERY = 40
SITE_FEED_SIZE = 10
FEED_SIZE = 20
RECENT_SCANS = 3
START_TOTAL_SIGNUPS = 8948
START_SIGNUPS_TODAY = 127
SITES = NAMES  # the four demo sites
TRAFFIC_ACTIONS = ("page_view", "login", "api_call", "search", "download")
# Simulated lines say so in their own words: none of them reads as something that really happened
# (a "block" here never blocked anything and is never counted in Threats Blocked).
ACTIVITY_TEMPLATES = (
    ("block", "Simulated: suspicious requests from {ip} would be blocked (nothing was blocked)"),
    ("scan", "Simulated: session scan of {site} for anomalies"),
    ("optimize", "Simulated: rate-limit tuning for {site}"),
    ("patch", "Simulated: virtual patch for the {site} login form"),
)
SIMULATED_STATUS = "simulated"


@dataclass
class SimulationState:
    tick: int = 0
    requests_per_minute: int = 12
    active_users: int = 80
    bandwidth: float = 12.0
    events_generated: int = 0
    total_signups: int = START_TOTAL_SIGNUPS
    signups_today: int = START_SIGNUPS_TODAY
    feed: list[dict[str, Any]] = field(default_factory=list)
    site_feeds: dict[str, list[dict[str, Any]]] = field(default_factory=lambda: {name: [] for name in SITES})
    user_stats: dict[str, int] = field(default_factory=lambda: {"clean": 0, "suspicious": 0, "blocked": 0})
    recent_scans: list[dict[str, Any]] = field(default_factory=list)

    @property
    def capacity_percent(self) -> float:
        return round(self.requests_per_minute / CAPACITY_DIVISOR * 100, 1)

    def to_snapshot(self) -> dict[str, Any]:
        return asdict(self) | {"capacityPercent": self.capacity_percent}


def _ip(rng: random.Random) -> str:
    return f"{rng.randint(11, 223)}.{rng.randint(0, 255)}.{rng.randint(0, 255)}.{rng.randint(1, 254)}"


def _bounded(rng: random.Random, value: float, bounds: tuple[int, int], step: float) -> float:
    return min(bounds[1], max(bounds[0], value + rng.uniform(-step, step)))


def advance_traffic(state: SimulationState, rng: random.Random) -> None:
    """One 3-second traffic tick: figures drift within bounds, one feed entry (every 40th a signup)."""
    state.tick += 1
    state.requests_per_minute = round(_bounded(rng, state.requests_per_minute, RPM_RANGE, 2))
    state.active_users = round(_bounded(rng, state.active_users, ACTIVE_USERS_RANGE, 8))
    state.bandwidth = round(_bounded(rng, state.bandwidth, BANDWIDTH_RANGE, 2.5), 1)
    state.events_generated += 1
    signup = state.events_generated % SIGNUP_EVERY == 0
    site = rng.choice(SITES)
    entry = {
        "id": state.events_generated,
        "ip": _ip(rng),
        "site": site,
        "action": "signup" if signup else rng.choice(TRAFFIC_ACTIONS),
        "timestamp": utcnow().isoformat(),
    }
    if signup:
        state.total_signups += 1
        state.signups_today += 1
    state.feed = [entry, *state.feed][:FEED_SIZE]
    state.site_feeds[site] = [entry, *state.site_feeds.get(site, [])][:SITE_FEED_SIZE]


def maybe_scan_user(state: SimulationState, rng: random.Random) -> dict[str, Any] | None:
    """Every 5 s, a 30% chance that a user is scanned and classified."""
    if rng.random() >= USER_SCAN_CHANCE:
        return None
    verdict = rng.choices(("clean", "suspicious", "blocked"), weights=(80, 15, 5))[0]
    state.user_stats[verdict] += 1
    scan = {"ip": _ip(rng), "site": rng.choice(SITES), "verdict": verdict, "timestamp": utcnow().isoformat()}
    state.recent_scans = [scan, *state.recent_scans][:RECENT_SCANS]
    return scan


def simulated_activity(rng: random.Random) -> tuple[str, str, str]:
    activity_type, template = rng.choice(ACTIVITY_TEMPLATES)
    site = rng.choice(SITES)
    return activity_type, site, template.format(ip=_ip(rng), site=site)


async def record_simulated_activity(session: AsyncSession, rng: random.Random) -> None:
    """One simulated AI activity line, marked simulated (flag and status), and only the feed's newest simulated
    lines kept (the spec keeps the list at 5; an idle server must not pile up rows); with the caller's commit."""
    kind, site, text = simulated_activity(rng)
    activities.record(session, activity_type=kind, target=site, description=text, status=SIMULATED_STATUS, simulated=True)
    await activities.keep_newest_simulated(session)


async def save_snapshot(session: AsyncSession, state: SimulationState) -> None:
    row = await session.get(LiveSnapshot, SNAPSHOT) or LiveSnapshot(name=SNAPSHOT)
    row.data = state.to_snapshot()
    row.updated_at = utcnow()
    session.add(row)
    mark_changed(session, TOPIC)


async def read_snapshot(*, session: AsyncSession) -> dict[str, Any] | None:
    """The newest simulated figures, or None when the simulated traffic is off (the default) or has not run."""
    if not get_settings().traffic_simulation_enabled:
        return None
    row = await session.get(LiveSnapshot, SNAPSHOT)
    return dict(row.data) if row else None


async def run_simulation(seed: int | None = None) -> None:
    """Lifespan task: advance the simulation on the spec's intervals; one producer per deployment."""
    if not get_settings().simulation_enabled:
        return
    rng = random.Random(seed)

    async def lead(lost: asyncio.Event) -> None:  # runs again after a lost lease, from the stored totals
        async with session_scope() as session:
            previous = await session.get(LiveSnapshot, SNAPSHOT)
        state = SimulationState()
        if previous:  # carry totals across restarts
            state.total_signups = previous.data.get("total_signups", START_TOTAL_SIGNUPS)
            state.signups_today = previous.data.get("signups_today", START_SIGNUPS_TODAY)
            state.user_stats = previous.data.get("user_stats", state.user_stats)
        elapsed = 0
        while not lost.is_set():
            try:
                advance_traffic(state, rng)
                async with session_scope() as session:
                    if elapsed % USER_SCAN_EVERY_SECONDS < TRAFFIC_TICK_SECONDS:
                        maybe_scan_user(state, rng)
                    if elapsed % ACTIVITY_EVERY_SECONDS < TRAFFIC_TICK_SECONDS:
                        await record_simulated_activity(session, rng)
                    await save_snapshot(session, state)
                    await commit(session)
            except Exception:
                log.exception("simulation tick failed")
            await asyncio.sleep(TRAFFIC_TICK_SECONDS)
            elapsed += TRAFFIC_TICK_SECONDS

    await run_as_leader("simulation", lead)
