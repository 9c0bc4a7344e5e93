"""Decisions: a ban or throttle of an address (or range) until a time, opened by a scenario, an operator or a
drill. Bouncers fetch them; a removed decision is kept (deleted_at) so bouncers hear of the removal."""

from __future__ import annotations

from datetime import timedelta

from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from secdash.models import DecisionOrigin, DecisionType, TrafficDecision, as_utc, utcnow
from secdash.services.traffic.detector import Detection

REUSE_WITHIN = timedelta(minutes=10)  # a decision in force that ends this much sooner still serves a new detection


async def active_for(session: AsyncSession, value: str) -> TrafficDecision | None:
    """The newest decision on exactly this address or range that is in force now."""
    rows = await session.exec(
        select(TrafficDecision)
        .where(
            TrafficDecision.value == value,
            col(TrafficDecision.deleted_at).is_(None),
            col(TrafficDecision.until) > utcnow(),
        )
        .order_by(col(TrafficDecision.id).desc())
        .limit(1)
    )
    return rows.first()


async def open_for(session: AsyncSession, *, site_id: int, detection: Detection, drill: bool = False) -> TrafficDecision | None:
    """The decision a detection opens: the one in force on that address if it ends at most REUSE_WITHIN sooner, else a new
    one for the scenario's duration from now (bouncers take the longer one; the shorter one's end is not sent as
    a removal while the longer one holds, see services/traffic/bouncers.py); with the caller's commit."""
    scenario = detection.scenario
    until = utcnow() + timedelta(seconds=scenario.decision_seconds)
    current = await active_for(session, detection.address)
    if current is not None and as_utc(current.until) >= until - REUSE_WITHIN:
        return current
    decision = TrafficDecision(
        scope="ip",
        value=detection.address,
        type=DecisionType(scenario.decision_type),
        origin=DecisionOrigin.drill if drill else DecisionOrigin.scenario,
        scenario=scenario.name,
        reason=f"{scenario.description} ({detection.events} requests)"[:300],
        site_id=site_id,
        until=until,
    )
    session.add(decision)
    await session.flush()
    return decision
