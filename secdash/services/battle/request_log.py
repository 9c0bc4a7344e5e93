"""What each demo site answered: bounded (the newest KEEP_PER_SITE requests per site are kept), with the
drill's marker (attack or benign traffic of an operation), whether the defense blocked it and which rule.

A drill marks its requests with the header `X-SecDash-Drill: <operation id>:<attack|benign>:<client>:<sig>`
(`drill_header()` writes it): believed only from a loopback peer and with a valid signature (an HMAC of the
rest under the server's secret key), so traffic from elsewhere cannot pose as a drill or pick its client
address. `<client>` is the simulated client the request counts as (rate limits are per client).
"""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import delete, func, text
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from secdash.core.config import get_settings
from secdash.models import DemoRequest, DrillTraffic, utcnow
from secdash.services.battle.defense import check_slug

DRILL_HEADER = "x-secdash-drill"
MONITOR_HEADER = "x-secdash-monitor"  # SecDash's own site monitor probing a demo site (signed)
KEEP_PER_SITE = 5000
PRUNE_EVERY = 200  # inserts (per process and site) between two prunes
MAX_PATH_LENGTH = 200
_OPERATION_ID = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
_inserts: dict[str, int] = {}


@dataclass(frozen=True)
class DrillMark:
    operation_id: str
    traffic: DrillTraffic
    client: str


@dataclass(frozen=True)
class TrafficCounts:
    """One operation's requests as the demo site logged them."""

    attack_sent: int = 0
    attack_blocked: int = 0
    benign_sent: int = 0
    benign_blocked: int = 0

    @property
    def attack_passed(self) -> int:
        return self.attack_sent - self.attack_blocked

    @property
    def benign_passed(self) -> int:
        return self.benign_sent - self.benign_blocked


def _signature(operation_id: str, traffic: str, client: str) -> str:
    key = get_settings().secret_key().encode()
    message = f"{operation_id}:{traffic}:{client}".encode()
    return hmac.new(key, b"secdash-drill:" + message, hashlib.sha256).hexdigest()[:32]


def drill_header(operation_id: str, traffic: DrillTraffic | str, client: str) -> str:
    """The X-SecDash-Drill value a drill sends with each request."""
    traffic = DrillTraffic(traffic).value
    if not _OPERATION_ID.match(operation_id):
        raise ValueError("operation id: 1 to 64 letters, digits, '-' or '_'")
    client = str(ipaddress.ip_address(client))
    return f"{operation_id}:{traffic}:{client}:{_signature(operation_id, traffic, client)}"


def _monitor_signature() -> str:
    key = get_settings().secret_key().encode()
    return hmac.new(key, b"secdash-monitor-probe", hashlib.sha256).hexdigest()[:32]


def monitor_headers() -> dict[str, str]:
    """The header SecDash's monitor sends to its own demo sites (never to other sites): their rate limits, which
    a DDoS drill deploys at 10 pages a minute per client, do not count it; every other rule still applies."""
    return {MONITOR_HEADER: _monitor_signature()}


def is_monitor_probe(peer: str | None, value: str | None) -> bool:
    """Whether a request is the monitor's signed probe from this machine."""
    if not value:
        return False
    return _is_loopback(peer) and hmac.compare_digest(value.strip(), _monitor_signature())


def _is_loopback(peer: str | None) -> bool:
    try:
        return ipaddress.ip_address((peer or "").strip()).is_loopback
    except ValueError:
        return False


def read_drill_mark(peer: str | None, value: str | None) -> DrillMark | None:
    """The drill's marker, if the header is present, signed, and came from this machine (else None)."""
    if not value or not _is_loopback(peer):
        return None
    parts = value.strip().split(":")
    if len(parts) < 4:
        return None
    operation_id, traffic, signature = parts[0], parts[1], parts[-1]
    client = ":".join(parts[2:-1])  # an IPv6 client has colons of its own
    if not _OPERATION_ID.match(operation_id) or traffic not in (DrillTraffic.attack, DrillTraffic.benign):
        return None
    try:
        client = str(ipaddress.ip_address(client))
    except ValueError:
        return None
    if not hmac.compare_digest(signature, _signature(operation_id, traffic, client)):
        return None
    return DrillMark(operation_id=operation_id, traffic=DrillTraffic(traffic), client=client)


async def record(
    session: AsyncSession,
    *,
    slug: str,
    client: str,
    method: str,
    path: str,
    endpoint: str,
    status_code: int,
    blocked: bool,
    rule: str | None = None,
    mark: DrillMark | None = None,
) -> DemoRequest:
    """Log one answered request (committed by the caller); every PRUNE_EVERY inserts the oldest go."""
    await _one_at_a_time(session, slug, client)
    row = DemoRequest(
        slug=slug,
        client=client[:64],
        method=method[:8],
        path=path[:MAX_PATH_LENGTH],
        endpoint=endpoint,
        status_code=status_code,
        blocked=blocked,
        rule=(rule or None) and rule[:120],
        operation_id=mark.operation_id if mark else None,
        traffic=mark.traffic if mark else None,
    )
    session.add(row)
    _inserts[slug] = _inserts.get(slug, 0) + 1
    if _inserts[slug] >= PRUNE_EVERY:
        _inserts[slug] = 0
        await session.flush()
        await prune(session, slug)
    return row


async def _one_at_a_time(session: AsyncSession, slug: str, client: str) -> None:
    """One client's requests to one site are logged in turn, until each logging transaction commits.

    Rate limits count the client's requests logged before this one (`count_recent(before_id=...)`). On PostgreSQL
    ids come from a sequence at insert time, so without this a request could commit before an earlier-numbered one
    of the same burst and not see it (a burst of 60 against a limit of 20 let 21 through). A transaction-scoped
    advisory lock per (site, client) makes id order and commit order agree. SQLite runs one writer at a time."""
    if session.get_bind().dialect.name != "postgresql":
        return
    digest = hashlib.blake2b(f"demo-request\0{slug}\0{client}".encode(), digest_size=8).digest()
    connection = await session.connection()
    await connection.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": int.from_bytes(digest, "big", signed=True)})


async def finish(session: AsyncSession, row_id: int, *, status_code: int, blocked: bool, rule: str | None) -> None:
    """Complete a request logged when it arrived (status 0 until then); committed by the caller."""
    row = await session.get(DemoRequest, row_id)
    if row is not None:
        row.status_code, row.blocked, row.rule = status_code, blocked, (rule or None) and rule[:120]
        session.add(row)


async def prune(session: AsyncSession, slug: str, keep: int = KEEP_PER_SITE) -> None:
    """Delete the site's requests older than its newest `keep`."""
    cutoff = (
        await session.exec(
            select(DemoRequest.id).where(DemoRequest.slug == slug).order_by(col(DemoRequest.id).desc()).offset(keep).limit(1)
        )
    ).first()
    if cutoff is not None:
        await session.exec(
            delete(DemoRequest).where(
                col(DemoRequest.slug) == slug,
                col(DemoRequest.id) <= cutoff,
            )
        )


async def count_recent(
    session: AsyncSession,
    *,
    slug: str,
    client: str,
    since: datetime,
    endpoints: Sequence[str] | None,
    before_id: int | None = None,
) -> int:
    """Requests this client sent the site since `since` (on these endpoints; None: all), blocked or not.

    `before_id`: only those logged before that one. A request is logged as it arrives and counts the ones
    before it, so concurrent requests of a burst (on one worker or several) cannot all see the same count.
    """
    query = (
        select(func.count())
        .select_from(DemoRequest)
        .where(
            DemoRequest.slug == slug,
            DemoRequest.client == client,
            col(DemoRequest.at) >= since,
        )
    )
    if endpoints is not None:
        query = query.where(col(DemoRequest.endpoint).in_(endpoints))
    if before_id is not None:
        query = query.where(col(DemoRequest.id) < before_id)
    return int((await session.exec(query)).one())


async def operation_counts(session: AsyncSession, operation_id: str, slug: str | None = None) -> TrafficCounts:
    """Attack and benign requests of one operation, sent and blocked (as the demo site logged them)."""
    query = select(DemoRequest.traffic, DemoRequest.blocked, func.count()).where(DemoRequest.operation_id == operation_id)
    if slug is not None:
        query = query.where(DemoRequest.slug == check_slug(slug))
    counts = {"attack_sent": 0, "attack_blocked": 0, "benign_sent": 0, "benign_blocked": 0}
    for traffic, blocked, number in await session.exec(query.group_by(col(DemoRequest.traffic), col(DemoRequest.blocked))):
        if traffic is None:
            continue
        name = DrillTraffic(traffic).value
        counts[f"{name}_sent"] += number
        if blocked:
            counts[f"{name}_blocked"] += number
    return TrafficCounts(**counts)


async def recent_requests(session: AsyncSession, slug: str, limit: int = 50) -> list[DemoRequest]:
    """The site's newest requests, newest first."""
    check_slug(slug)
    limit = max(1, min(limit, 500))
    rows = await session.exec(
        select(DemoRequest).where(DemoRequest.slug == slug).order_by(col(DemoRequest.id).desc()).limit(limit)
    )
    return list(rows)


def window_start(seconds: int) -> datetime:
    return utcnow() - timedelta(seconds=seconds)
