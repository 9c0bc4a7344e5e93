"""Decisions: a ban or throttle of an address (or range) until a time, opened by a scenario, an operator or a
drill. Bouncers fetch them; a removed decision is kept (deleted_at) so bouncers hear of the removal."""

from __future__ import annotations

from datetime import timedelta

from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from secdash.models import DecisionOrigin, DecisionType, TrafficDecision, as_utc, utcnow
from secdash.services.traffic.detector import Detection


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


async def open_for(session: AsyncSession, *, site_id: int, detection: Detection) -> TrafficDecision | None:
    """The decision a detection opens: a new one for the scenario's duration from now, or the one already in force
    on that address (extended when this one lasts longer); with the caller's commit."""
    scenario = detection.scenario
    until = utcnow() + timedelta(seconds=scenario.decision_seconds)
    current = await active_for(session, detection.address)
    if current is not None:
        if until > as_utc(current.until):
            current.until = until
            session.add(current)
        return current
    decision = TrafficDecision(
        scope="ip",
        value=detection.address,
        type=DecisionType(scenario.decision_type),
        origin=DecisionOrigin.scenario,
        scenario=scenario.name,
        reason=f"{scenario.description} ({detection.events} requests)"[:300],
        site_id=site_id,
        until=until,
    )
    session.add(decision)
    await session.flush()
    return decision
