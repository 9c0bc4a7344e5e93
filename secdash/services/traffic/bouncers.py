"""Bouncers: the enforcement agents on web servers and firewalls (CrowdSec's bouncers, unchanged) fetch SecDash's
decisions through the CrowdSec Local API's bouncer endpoints, authenticated by a per-bouncer API key (shown once,
stored as SHA-256, revocable).

    stream   GET /v1/decisions/stream?startup=true: every decision in force as "new", and those that ended in the
             last DELETED_WINDOW as "deleted"; then, on each pull, what was made and what ended since the
             bouncer's previous pull. An ended decision is not sent as deleted while another one holds the same
             value (the bouncer would lift a ban that still stands).
    query    GET /v1/decisions?ip=A (or range=CIDR, value=, scope=, type=): the decisions in force that cover it.
"""

from __future__ import annotations

import ipaddress
import re
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlmodel import col, or_, select
from sqlmodel.ext.asyncio.session import AsyncSession

from secdash.core.unit import commit
from secdash.models import Bouncer, DecisionType, LogCategory, TrafficDecision, UserPublic, as_utc, utcnow
from secdash.services import audit
from secdash.services.errors import Conflict, Invalid, NotFound
from secdash.services.identity.permissions import require_admin
from secdash.services.traffic import enforcement, keys
from secdash.services.traffic.decisions import in_force

KEY_PREFIX = "sdb_"
MAX_BOUNCERS = 100
DELETED_WINDOW = timedelta(hours=24)
LAPI_SCOPES = {"ip": "Ip", "range": "Range"}
LAPI_TYPES = {DecisionType.ban: "ban", DecisionType.throttle: "captcha"}  # what bouncers call a throttle
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9 ._@-]{0,79}$")


@dataclass(frozen=True)
class NewBouncer:
    bouncer: Bouncer
    key: str  # shown once


async def add_bouncer(*, session: AsyncSession, actor: UserPublic, name: str) -> NewBouncer:
    """Register a bouncer (admins only; audited); its API key is in the answer and nowhere else."""
    require_admin(actor, "add bouncers")
    name = name.strip()
    if not _NAME.match(name):
        raise Invalid("name: 1 to 80 letters, digits, spaces, '.', '_', '@' or '-'")
    if (await session.exec(select(Bouncer).where(Bouncer.name == name))).first() is not None:
        raise Conflict(f"a bouncer named {name!r} exists; pick another name or revoke it")
    if len((await session.exec(select(Bouncer.id))).all()) >= MAX_BOUNCERS:
        raise Conflict(f"at most {MAX_BOUNCERS} bouncers; revoke one first")
    key = keys.new_key(KEY_PREFIX)
    bouncer = Bouncer(name=name, key_hash=key.digest, prefix=key.shown, created_by_user_id=actor.id)
    session.add(bouncer)
    await session.flush()
    audit.record(
        session,
        category=LogCategory.system,
        admin_only=True,
        action="Bouncer added",
        actor_user_id=actor.id,
        description=f"{actor.email} added the bouncer {name} ({bouncer.prefix}…)",
        details={"bouncerId": bouncer.id},
    )
    await commit(session)
    return NewBouncer(bouncer=bouncer, key=key.secret)


async def list_bouncers(*, session: AsyncSession, actor: UserPublic) -> list[Bouncer]:
    require_admin(actor, "see bouncers")
    return list(await session.exec(select(Bouncer).order_by(col(Bouncer.id).desc())))


async def revoke_bouncer(*, session: AsyncSession, actor: UserPublic, bouncer_id: int) -> Bouncer:
    require_admin(actor, "revoke bouncers")
    bouncer = await session.get(Bouncer, bouncer_id)
    if bouncer is None:
        raise NotFound("Bouncer not found")
    if bouncer.revoked_at is None:
        bouncer.revoked_at = utcnow()
        session.add(bouncer)
        audit.record(
            session,
            category=LogCategory.system,
            admin_only=True,
            action="Bouncer revoked",
            actor_user_id=actor.id,
            description=f"{actor.email} revoked the bouncer {bouncer.name}",
            details={"bouncerId": bouncer.id},
        )
        await commit(session)
    return bouncer


async def bouncer_for_key(session: AsyncSession, key: str | None) -> Bouncer | None:
    if not keys.plausible(key, KEY_PREFIX):
        return None
    bouncer = (await session.exec(select(Bouncer).where(Bouncer.key_hash == keys.digest(key)))).first()
    return bouncer if bouncer is not None and bouncer.revoked_at is None else None


def go_duration(seconds: float) -> str:
    """A duration as Go prints it (what bouncers parse): 3h59m58.5s, 12m0s, -5m3s."""
    sign = "-" if seconds < 0 else ""
    seconds = abs(seconds)
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    text = f"{secs:.3f}".rstrip("0").rstrip(".") + "s"
    if hours >= 1:
        return f"{sign}{int(hours)}h{int(minutes)}m{text}"
    if minutes >= 1:
        return f"{sign}{int(minutes)}m{text}"
    return sign + text


def lapi_decision(decision: TrafficDecision, now: datetime) -> dict[str, Any]:
    """A decision as the CrowdSec Local API writes it (models.Decision)."""
    return {
        "id": decision.id,
        "origin": decision.origin.value,
        "type": LAPI_TYPES[decision.type],
        "scope": LAPI_SCOPES.get(decision.scope, decision.scope),
        "value": decision.value,
        "duration": go_duration((as_utc(decision.until) - now).total_seconds()),
        "until": as_utc(decision.until).isoformat().replace("+00:00", "Z"),
        "scenario": decision.scenario or decision.reason or decision.origin.value,
    }


def _scope_filter(scopes: str | None) -> list[str]:
    wanted = [part.strip().lower() for part in (scopes or "ip,range").split(",") if part.strip()]
    return [scope for scope in wanted if scope in LAPI_SCOPES]


async def stream(session: AsyncSession, bouncer: Bouncer, *, startup: bool, scopes: str | None = None) -> dict[str, Any]:
    """What the bouncer should add and remove since its previous pull (everything in force on startup)."""
    now = utcnow()
    kinds = _scope_filter(scopes)
    since = None if startup or bouncer.last_pull_at is None else as_utc(bouncer.last_pull_at)
    active_query = select(TrafficDecision).where(in_force(now), col(TrafficDecision.scope).in_(kinds))
    if since is not None:
        active_query = active_query.where(col(TrafficDecision.created_at) > since)
    new = list(await session.exec(active_query.order_by(col(TrafficDecision.id))))
    ended_since = since or now - DELETED_WINDOW
    ended = list(
        await session.exec(
            select(TrafficDecision)
            .where(
                col(TrafficDecision.scope).in_(kinds),
                or_(
                    (col(TrafficDecision.until) <= now) & (col(TrafficDecision.until) > ended_since),
                    col(TrafficDecision.deleted_at) > ended_since,
                ),
            )
            .order_by(col(TrafficDecision.id))
        )
    )
    ended_values = {row.value for row in ended}
    still_held: set[str] = set()
    if ended_values:
        held = select(TrafficDecision.value).where(in_force(now), col(TrafficDecision.value).in_(ended_values))
        still_held = set((await session.exec(held)).all())
    deleted = [row for row in ended if row.value not in still_held]
    bouncer.last_pull_at = now
    session.add(bouncer)
    await enforcement.by_bouncer(session, bouncer.name, new, asked=False)
    await commit(session)
    return {
        "new": [lapi_decision(row, now) for row in new] or None,
        "deleted": [lapi_decision(row, now) for row in deleted] or None,
    }


async def query(
    session: AsyncSession, *, ip: str | None = None, range_: str | None = None, value: str | None = None,
    scope: str | None = None, type_: str | None = None, bouncer: Bouncer | None = None,
) -> list[dict[str, Any]] | None:  # fmt: skip
    """The decisions in force that cover an address or range (None when there is none, as the Local API answers).
    Bouncers in live mode ask this for each new client, so an address is looked up by value (and the ranges,
    which are few), not by reading every decision. A `bouncer` asking about an address it is told to block counts
    that request as blocked (services/traffic/enforcement.py)."""
    now = utcnow()
    wanted: ipaddress.IPv4Network | ipaddress.IPv6Network | None = None
    try:
        if ip:
            wanted = ipaddress.ip_network(ip.strip(), strict=False)
            if wanted.num_addresses != 1:
                raise ValueError
        elif range_:
            wanted = ipaddress.ip_network(range_.strip(), strict=False)
    except ValueError:
        raise Invalid("ip: an IP address; range: a network in CIDR") from None
    candidates = select(TrafficDecision).where(in_force(now))
    if ip and wanted is not None:
        address = str(wanted.network_address)
        candidates = candidates.where(or_(col(TrafficDecision.value) == address, col(TrafficDecision.scope) == "range"))
    elif range_:
        candidates = candidates.where(col(TrafficDecision.scope) == "range")
    elif value is not None:
        candidates = candidates.where(col(TrafficDecision.value) == value)
    rows = list(await session.exec(candidates))
    found: list[TrafficDecision] = []
    for row in rows:
        if value is not None and row.value != value:
            continue
        if scope is not None and LAPI_SCOPES.get(row.scope, row.scope).lower() != scope.strip().lower():
            continue
        if type_ is not None and LAPI_TYPES[row.type] != type_.strip().lower():
            continue
        if wanted is not None:
            held = ipaddress.ip_network(row.value, strict=False)
            if held.version != wanted.version or not wanted.subnet_of(held):  # type: ignore[arg-type]
                continue
        found.append(row)
    if bouncer is not None and ip and found and await enforcement.by_bouncer(session, bouncer.name, found, asked=True):
        await commit(session)
    return [lapi_decision(row, now) for row in found] or None
