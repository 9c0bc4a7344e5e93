"""Decisions: a ban or throttle of an address (or range) until a time, opened by a scenario, an operator or a
drill. Bouncers fetch them; a removed decision is kept (deleted_at) so bouncers hear of the removal."""

from __future__ import annotations

import ipaddress
from collections.abc import Sequence
from datetime import datetime, timedelta
from ipaddress import IPv4Network, IPv6Network

from sqlalchemy import ColumnElement, and_
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from secdash.core.unit import commit, mark_changed
from secdash.models import DecisionOrigin, DecisionType, LogCategory, Role, TrafficDecision, UserPublic, as_utc, utcnow
from secdash.models.traffic_public import DecisionPublic
from secdash.services import audit
from secdash.services.errors import Invalid, NotFound
from secdash.services.identity.permissions import require_admin
from secdash.services.traffic.detector import Detection
from secdash.services.traffic.ingest import TOPIC

IPNetwork = IPv4Network | IPv6Network

DECISIONS_TOPIC = "decisions"  # a decision was made or lifted (ingest's topic is marked too: User Scan's verdicts)
REUSE_WITHIN = timedelta(minutes=10)  # a decision in force that ends this much sooner still serves a new detection


def in_force(now: datetime) -> ColumnElement[bool]:
    """The condition of a decision in force at `now`: not lifted, not ended (the one place this rule is written)."""
    return and_(col(TrafficDecision.deleted_at).is_(None), col(TrafficDecision.until) > now)


def why(decision: TrafficDecision) -> str:
    """What a decision is for, in a few words: its scenario, else its reason, else its origin."""
    return decision.scenario or decision.reason or decision.origin.value


class Cover:
    """The decisions in force, to look clients up: an address by value, an IPv6 client (its /64) or a range by
    network (the one place a decision "covers" a client)."""

    def __init__(self, in_force: Sequence[TrafficDecision]) -> None:
        self.by_value = {decision.value: decision for decision in in_force}
        self.networks: list[tuple[IPNetwork, TrafficDecision]] = []
        for decision in in_force:
            try:
                self.networks.append((ipaddress.ip_network(decision.value, strict=False), decision))
            except ValueError:
                continue

    def of(self, client: str) -> TrafficDecision | None:
        if client in self.by_value:
            return self.by_value[client]
        try:
            network = ipaddress.ip_network(client, strict=False)
        except ValueError:
            return None
        for covered, decision in self.networks:
            if network.version == covered.version and (network.subnet_of(covered) or covered.subnet_of(network)):  # type: ignore[arg-type]
                return decision
        return None


async def cover(session: AsyncSession, now: datetime | None = None) -> Cover:
    """The decisions in force now, as a Cover."""
    rows = await session.exec(select(TrafficDecision).where(in_force(now or utcnow())))
    return Cover(rows.all())


async def active_for(session: AsyncSession, value: str) -> TrafficDecision | None:
    """The newest decision on exactly this address or range that is in force now."""
    rows = await session.exec(
        select(TrafficDecision)
        .where(TrafficDecision.value == value, in_force(utcnow()))
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
    mark_changed(session, DECISIONS_TOPIC)
    return decision


MAX_OPERATOR_DURATION = timedelta(days=365)


def _scope_and_value(value: str) -> tuple[str, str]:
    try:
        network = ipaddress.ip_network(value.strip(), strict=False)
    except ValueError:
        raise Invalid("value: an IP address or a network in CIDR (e.g. 203.0.113.7 or 203.0.113.0/24)") from None
    if network.num_addresses == 1:
        return "ip", str(network.network_address)
    if network.prefixlen < (8 if network.version == 4 else 32):
        raise Invalid("value: a range is at most a /8 (IPv4) or a /32 (IPv6)")
    return "range", str(network)


async def list_decisions(
    *, session: AsyncSession, actor: UserPublic, active_only: bool = True, limit: int = 200
) -> list[TrafficDecision]:
    """Decisions newest first: those in force (default), or every one kept, removed and ended included."""
    require_admin(actor, "see decisions")
    query = select(TrafficDecision).order_by(col(TrafficDecision.id).desc()).limit(max(1, min(limit, 1000)))
    if active_only:
        query = query.where(in_force(utcnow()))
    return list(await session.exec(query))


SHOWN = 50  # decisions in force listed on the User Scan tab


async def shown_to(*, session: AsyncSession, viewer: UserPublic | None) -> list[DecisionPublic] | None:
    """The decisions in force, newest first, as the dashboard lists them: for admins (who may change them); None
    for everyone else (they see a client's verdict on User Scan, not the decisions)."""
    if viewer is None or viewer.role != Role.admin:
        return None
    rows = await list_decisions(session=session, actor=viewer, active_only=True, limit=SHOWN)
    return [DecisionPublic.model_validate(row, from_attributes=True) for row in rows]


async def add_decision(
    *, session: AsyncSession, actor: UserPublic, value: str, type_: str, seconds: int, reason: str
) -> TrafficDecision:
    """An operator's ban or throttle of an address or range (admins only; audited)."""
    require_admin(actor, "add decisions")
    scope, value = _scope_and_value(value)
    if not 60 <= seconds <= MAX_OPERATOR_DURATION.total_seconds():
        raise Invalid("duration: from 60 seconds to 365 days")
    try:
        kind = DecisionType(type_)
    except ValueError:
        raise Invalid("type: ban or throttle") from None
    decision = TrafficDecision(
        scope=scope,
        value=value,
        type=kind,
        origin=DecisionOrigin.operator,
        reason=reason.strip()[:300] or f"added by {actor.email}",
        created_by_user_id=actor.id,
        until=utcnow() + timedelta(seconds=seconds),
    )
    session.add(decision)
    await session.flush()
    audit.record(
        session,
        category=LogCategory.security,
        admin_only=True,
        action="Decision added",
        actor_user_id=actor.id,
        description=f"{actor.email} added a {kind.value} of {value} for {seconds // 60} minutes",
        details={"decisionId": decision.id, "value": value, "type": kind.value, "seconds": seconds},
    )
    mark_changed(session, TOPIC, DECISIONS_TOPIC)
    await commit(session)
    return decision


async def remove_decision(*, session: AsyncSession, actor: UserPublic, decision_id: int) -> TrafficDecision:
    """Lift a decision now (admins only; audited); bouncers hear of it on their next pull."""
    require_admin(actor, "remove decisions")
    decision = await session.get(TrafficDecision, decision_id)
    if decision is None:
        raise NotFound("Decision not found")
    if decision.deleted_at is None:
        decision.deleted_at = utcnow()
        session.add(decision)
        audit.record(
            session,
            category=LogCategory.security,
            admin_only=True,
            action="Decision removed",
            actor_user_id=actor.id,
            description=f"{actor.email} lifted the {decision.type.value} of {decision.value}",
            details={"decisionId": decision.id, "value": decision.value},
        )
        mark_changed(session, TOPIC, DECISIONS_TOPIC)
        await commit(session)
    return decision
