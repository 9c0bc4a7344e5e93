"""Ingest: a site's access-log lines become stored requests and per-minute figures, in one transaction.

Every line is parsed (services/traffic/logformats.py); the ones that are not requests are counted and a few kept
to show ("12 of 10,000 lines could not be read: ..."), and the valid ones are kept whatever the others hold.
Detection reads the stored requests (services/traffic/detection.py), so one detector sees every worker's ingest.
Addresses are personal data: with SECDASH_TRAFFIC_TRUNCATE_ADDRESSES they are stored truncated (IPv4 to /24,
IPv6 to /48); IPv6 clients count per /64 either way (one host usually holds a whole /64).
"""

from __future__ import annotations

import ipaddress
import zlib
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import delete, insert, text
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from secdash.core.config import get_settings
from secdash.core.unit import commit, mark_changed
from secdash.models import Site, TrafficMinute, TrafficRequest, utcnow
from secdash.services.errors import Invalid, TooLarge, Unsupported
from secdash.services.traffic import site_settings
from secdash.services.traffic.logfiles import Tally
from secdash.services.traffic.logformats import LineError, Request, parse_line

TOPIC = "requests"  # logged requests, detections and decisions changed (not "traffic": the simulation's)
INGEST_LOCK_KEY = 0x5EC0_7A1F  # the PostgreSQL advisory lock ingest transactions take turns on
MAX_LINES_PER_BATCH = 100_000
STORED_TARGET_CHARS = 1024
STORED_TEXT_CHARS = 512
BLOCKED_STATUSES = (403, 429)
MINUTE_FIGURES = ("requests", "bytes", "status_2xx", "status_3xx", "status_4xx", "status_5xx", "blocked", "signups")


@dataclass(frozen=True)
class IngestResult:
    lines: int
    accepted: int
    unreadable: int
    samples: tuple[str, ...]

    @property
    def message(self) -> str:
        if not self.unreadable:
            return f"{self.accepted:,} requests stored"
        return f"{self.accepted:,} requests stored; {self.unreadable:,} of {self.lines:,} lines could not be read: " + "; ".join(
            self.samples
        )


def client_of(address: str) -> str:
    """Who a request counts as: the IPv4 address, or the IPv6 /64."""
    ip = ipaddress.ip_address(address)
    if ip.version == 6:
        return str(ipaddress.ip_network(f"{ip}/64", strict=False))
    return address


def stored_address(address: str, truncate: bool) -> str:
    """The address as stored: whole, or its /24 (IPv4) or /48 (IPv6) network's first address."""
    if not truncate:
        return address
    ip = ipaddress.ip_address(address)
    prefix = 24 if ip.version == 4 else 48
    return str(ipaddress.ip_network(f"{ip}/{prefix}", strict=False).network_address)


def _minute(moment: datetime) -> datetime:
    return moment.replace(second=0, microsecond=0)


def _row(site_id: int, request: Request, truncate: bool, operation_id: str | None = None) -> dict[str, Any]:
    address = stored_address(request.address, truncate)
    return {
        "site_id": site_id,
        "time": request.time,
        "address": address,
        "client": client_of(address),
        "method": request.method[:16],
        "target": request.target[:STORED_TARGET_CHARS],
        "status": request.status,
        "size": request.size,
        "user_agent": request.user_agent[:STORED_TEXT_CHARS],
        "referer": request.referer[:STORED_TEXT_CHARS],
        "operation_id": operation_id,
    }


def _count(minutes: dict[datetime, dict[str, int]], request: Request, signup_route: str | None) -> None:
    figures = minutes.setdefault(
        _minute(request.time),
        {
            "requests": 0,
            "bytes": 0,
            "status_2xx": 0,
            "status_3xx": 0,
            "status_4xx": 0,
            "status_5xx": 0,
            "blocked": 0,
            "signups": 0,
        },
    )
    figures["requests"] += 1
    figures["bytes"] += request.size
    status_class = request.status // 100
    if 2 <= status_class <= 5:
        figures[f"status_{status_class}xx"] += 1
    if request.status in BLOCKED_STATUSES:
        figures["blocked"] += 1
    if site_settings.is_signup(request.method, request.status, request.target, signup_route):
        figures["signups"] += 1


async def _add_minutes(session: AsyncSession, site_id: int, minutes: dict[datetime, dict[str, int]]) -> None:
    """Add to each minute's figures (created on first use), on SQLite and PostgreSQL alike."""
    dialect = session.bind.dialect.name if session.bind is not None else "sqlite"
    make = pg_insert if dialect == "postgresql" else sqlite_insert
    for minute, figures in sorted(minutes.items()):
        statement = make(TrafficMinute).values(site_id=site_id, minute=minute, **figures)
        statement = statement.on_conflict_do_update(
            index_elements=["site_id", "minute"],
            set_={name: getattr(TrafficMinute, name) + statement.excluded[name] for name in figures},
        )
        await session.execute(statement)


async def ingest_requests(session: AsyncSession, site_id: int, requests: list[Request], operation_id: str | None = None) -> int:
    """Store requests already parsed (the demo sites' own log comes this way, a drill's marked with its operation);
    with the caller's commit."""
    if not requests:
        return 0
    truncate = get_settings().TRAFFIC_TRUNCATE_ADDRESSES
    if session.bind is not None and session.bind.dialect.name == "postgresql":
        # Ingest transactions take turns, so request ids are committed in order and detection, reading by id,
        # never passes over a request another worker is still storing (SQLite writers take turns anyway).
        await session.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": INGEST_LOCK_KEY})
    signup_route = None  # read only when a request could be a signup (a POST answered 2xx/3xx): most batches have none
    if any(request.method == "POST" and 200 <= request.status < 400 for request in requests):
        signup_route = (await session.exec(select(Site.signup_route).where(Site.id == site_id))).first()
    minutes: dict[datetime, dict[str, int]] = {}
    for request in requests:
        _count(minutes, request, signup_route)
    rows = [_row(site_id, request, truncate, operation_id) for request in requests]
    await session.execute(insert(TrafficRequest), rows)
    await _add_minutes(session, site_id, minutes)
    mark_changed(session, TOPIC)
    return len(requests)


async def ingest_lines(session: AsyncSession, site_id: int, lines: Iterable[str], log_format: str = "auto") -> IngestResult:
    """Parse and store a batch of log lines for one site, and commit; the result says what could not be read.
    Invalid when no line at all is a request (nothing is stored then)."""
    tally = Tally()
    requests: list[Request] = []
    for number, line in enumerate(lines, start=1):
        tally.lines += 1
        try:
            requests.append(parse_line(line, log_format))
        except LineError as exc:
            tally.refuse(f"line {number}", line, str(exc))
    if tally.lines and not requests:
        raise Invalid(f"none of the {tally.lines:,} lines could be read: " + "; ".join(tally.samples))
    accepted = await ingest_requests(session, site_id, requests)
    await commit(session)
    return IngestResult(lines=tally.lines, accepted=accepted, unreadable=tally.unreadable, samples=tuple(tally.samples))


async def demo_site_id(session: AsyncSession, slug: str) -> int | None:
    """The site a bundled demo site's traffic belongs to (None once it was removed or pointed elsewhere)."""
    rows = await session.exec(select(Site.id).where(Site.default_slug == slug, col(Site.is_demo).is_(True)))
    return rows.first()


async def prune(session: AsyncSession) -> tuple[int, int]:
    """Raw requests past SECDASH_TRAFFIC_RAW_HOURS and minutes past SECDASH_TRAFFIC_MINUTE_DAYS; committed."""
    settings = get_settings()
    now = utcnow()
    raw = await session.execute(
        delete(TrafficRequest).where(col(TrafficRequest.time) < now - timedelta(hours=settings.TRAFFIC_RAW_HOURS))
    )
    kept_minutes = now - timedelta(days=settings.TRAFFIC_MINUTE_DAYS)
    minutes = await session.execute(delete(TrafficMinute).where(col(TrafficMinute.minute) < kept_minutes))
    await commit(session)
    return raw.rowcount or 0, minutes.rowcount or 0  # type: ignore[attr-defined]


GZIP_EXPANSION = 8  # a gzip body may unpack to this many times the ingest limit's size, no more


def body_lines(body: bytes, content_encoding: str, max_bytes: int) -> list[str]:
    """An ingest body's lines: plain or gzip (Content-Encoding, or gzip's magic bytes), unpacked to at most
    GZIP_EXPANSION x max_bytes; TooLarge, Invalid or Unsupported say what is wrong."""
    encoding = content_encoding.strip().lower()
    if encoding not in ("", "identity", "gzip", "x-gzip"):
        raise Unsupported(f"Content-Encoding {encoding[:20]!r} is not read here; send plain text or gzip")
    if encoding in ("gzip", "x-gzip") or body[:2] == b"\x1f\x8b":
        limit = GZIP_EXPANSION * max_bytes
        unpacker = zlib.decompressobj(wbits=31)
        try:
            data = unpacker.decompress(body, limit + 1)
        except zlib.error:
            raise Invalid("the body is not valid gzip") from None
        if len(data) > limit or unpacker.unconsumed_tail:
            raise TooLarge(f"the unpacked body is larger than {limit // (1024 * 1024)} MB; send smaller batches")
        if not unpacker.eof:
            raise Invalid("the gzip body is cut short")
        body = data
    lines = body.decode("utf-8", errors="replace").splitlines()
    if len(lines) > MAX_LINES_PER_BATCH:
        raise TooLarge(f"a batch holds at most {MAX_LINES_PER_BATCH:,} lines ({len(lines):,} sent); send smaller batches")
    return lines
