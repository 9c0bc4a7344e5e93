"""What Live Traffic and User Scan show, read from the stored requests, minutes, detections and decisions.

Every figure comes from what the sites' servers logged (services/traffic/ingest.py): requests in the last minute,
clients seen in the last five, bytes sent, the status mix and blocked answers of the last hour, signups (a POST to
the site's signup route answered 2xx/3xx) today, the most requested paths and the newest requests. User Scan
classifies each client seen in the last day: blocked while a decision covers it, suspicious when a scenario fired
for it without a decision in force, clean otherwise. Log fields are attacker-controlled text: they are passed on as
text (the pages render them as text, never as markup).
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import func, literal_column
from sqlalchemy.orm import aliased
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession
from sqlmodel.sql.expression import SelectOfScalar

from secdash.models import Site, TrafficDetection, TrafficMinute, TrafficRequest, as_utc, utcnow
from secdash.services.probe.fetch import USER_AGENT as MONITOR_AGENT
from secdash.services.traffic import decisions, site_settings
from secdash.services.traffic.ingest import MINUTE_FIGURES

RATE_SECONDS = 60  # requests, bytes: the last minute
ACTIVE_MINUTES = 5  # a client is active when seen this recently
MIX_MINUTES = 60  # status mix and blocked answers: the last hour
TOP_PATH_MINUTES = 5
TOP_PATHS = 5
FEED_SIZE = 20
SITE_FEED_SIZE = 5
CLIENT_HOURS = 24  # User Scan: the clients seen in the last day
RECENT_CLIENTS = 10  # listed: the blocked first, then the suspicious, then the clean
MIX_FIGURES = tuple(name for name in MINUTE_FIGURES if name != "bytes")  # the per-minute counts the screens sum
SHOWN_CHARS = 200  # a path or user agent is cut to this many characters on the screens


def _shown(text: str) -> str:
    return text if len(text) <= SHOWN_CHARS else text[: SHOWN_CHARS - 1] + "…"


def _path(target: str) -> str:
    return target.split("?", 1)[0] or "/"


def _feed_entry(row: TrafficRequest, names: dict[int, str]) -> dict[str, Any]:
    return {
        "id": row.id,
        "time": as_utc(row.time).isoformat(),
        "site": names.get(row.site_id, "?"),
        "client": row.client,
        "method": row.method,
        "path": _shown(row.target),
        "status": row.status,
        "size": row.size,
        "drill": row.operation_id is not None,
    }


async def _site_names(session: AsyncSession) -> dict[int, str]:
    rows = await session.exec(select(Site.id, Site.name).order_by(col(Site.id)))
    return {site_id: name for site_id, name in rows.all() if site_id is not None}


# Grouped by the site as an expression (`site_id + 0`): by the bare column SQLite walks the whole (site_id, id) index
# in GROUP BY order, every request stored, instead of searching the time window in the time index; this way a
# per-site figure costs what the window holds (PostgreSQL plans either form alike).
SITE_GROUP = (col(TrafficRequest.site_id) + literal_column("0")).label("site")


async def _per_site_rate(session: AsyncSession, since: datetime) -> dict[int, tuple[int, int]]:
    rows = await session.exec(
        select(SITE_GROUP, func.count(), func.coalesce(func.sum(TrafficRequest.size), 0))
        .where(col(TrafficRequest.time) >= since)
        .group_by(SITE_GROUP)
    )
    return {site_id: (int(count), int(size)) for site_id, count, size in rows.all()}


async def _active_clients(session: AsyncSession, since: datetime) -> tuple[int, dict[int, int]]:
    recent = col(TrafficRequest.time) >= since
    total = (await session.exec(select(func.count(func.distinct(TrafficRequest.client))).where(recent))).one()
    rows = await session.exec(
        select(SITE_GROUP, func.count(func.distinct(TrafficRequest.client))).where(recent).group_by(SITE_GROUP)
    )
    return int(total or 0), {site_id: int(count) for site_id, count in rows.all()}


async def _minute_sums(session: AsyncSession, since: datetime) -> dict[int, dict[str, int]]:
    rows = await session.exec(
        select(TrafficMinute.site_id, *[func.coalesce(func.sum(getattr(TrafficMinute, name)), 0) for name in MIX_FIGURES])
        .where(col(TrafficMinute.minute) >= since)
        .group_by(col(TrafficMinute.site_id))
    )
    sums: dict[int, dict[str, int]] = {}
    for row in rows.all():
        values: tuple[Any, ...] = tuple(row)  # type: ignore[arg-type]
        sums[int(values[0])] = dict(zip(MIX_FIGURES, map(int, values[1:]), strict=True))
    return sums


async def _top_paths(session: AsyncSession, since: datetime) -> list[dict[str, Any]]:
    rows = await session.exec(
        select(TrafficRequest.target, func.count().label("hits"))
        .where(col(TrafficRequest.time) >= since)
        .group_by(col(TrafficRequest.target))
        .order_by(func.count().desc())
        .limit(200)
    )
    paths: dict[str, int] = {}
    for target, hits in rows.all():
        path = _path(target)
        paths[path] = paths.get(path, 0) + int(hits)
    top = sorted(paths.items(), key=lambda item: (-item[1], item[0]))[:TOP_PATHS]
    return [{"path": _shown(path), "requests": hits} for path, hits in top]


def newest_query(site_id: int | None, limit: int) -> SelectOfScalar[TrafficRequest]:
    """The newest requests (of one site, or of all), but SecDash's own monitor's probes: counted in the figures, not
    listed (every site gets one every monitor interval; they would push the visitors' requests off the list). A
    site's are read backwards from the (site_id, id) index, however many it has stored."""
    query = (
        select(TrafficRequest)
        .where(col(TrafficRequest.user_agent).not_like(MONITOR_AGENT + "%"))
        .order_by(col(TrafficRequest.id).desc())
        .limit(limit)
    )
    if site_id is not None:
        query = query.where(TrafficRequest.site_id == site_id)
    return query


async def _newest(session: AsyncSession, names: dict[int, str], site_id: int | None, limit: int) -> list[dict[str, Any]]:
    return [_feed_entry(row, names) for row in (await session.exec(newest_query(site_id, limit))).all()]


def newest_per_site_query(limit: int) -> SelectOfScalar[TrafficRequest]:
    """Every site's `limit` newest requests (the monitor's probes left out, as in newest_query), in ONE statement:
    for each site a correlated subquery reads its newest ids backwards from the (site_id, id) index, as a query of
    one site does, so the cost grows with the sites times `limit`, never with the requests stored. (One query per
    site was 1,000 statements per Live Traffic read at 1,000 sites, read every second while logs arrive.)"""
    own = aliased(TrafficRequest)
    newest_ids = (
        select(own.id)
        .where(own.site_id == Site.id, col(own.user_agent).not_like(MONITOR_AGENT + "%"))
        .order_by(col(own.id).desc())
        .limit(limit)
        .correlate(Site)
    )
    return (
        select(TrafficRequest)
        .select_from(Site)
        .join(TrafficRequest, col(TrafficRequest.id).in_(newest_ids))
        .order_by(col(TrafficRequest.site_id), col(TrafficRequest.id).desc())
    )


async def _newest_per_site(session: AsyncSession, names: dict[int, str], limit: int) -> dict[int, list[dict[str, Any]]]:
    feeds: dict[int, list[dict[str, Any]]] = {}
    for row in (await session.exec(newest_per_site_query(limit))).all():
        feeds.setdefault(row.site_id, []).append(_feed_entry(row, names))
    return feeds


def _zero_mix() -> dict[str, int]:
    return dict.fromkeys(MIX_FIGURES, 0)


def _added(total: dict[str, int], part: dict[str, int]) -> dict[str, int]:
    return {name: total[name] + part.get(name, 0) for name in total}


async def live_traffic(session: AsyncSession, now: datetime | None = None) -> dict[str, Any]:
    """The Live Traffic figures, overall and per site (sites with no request in the last hour have zeros)."""
    now = now or utcnow()
    names = await _site_names(session)
    capacities = {
        site_id: capacity
        for site_id, capacity in (
            await session.exec(select(Site.id, Site.capacity_rpm).where(col(Site.capacity_rpm).is_not(None)))
        ).all()
        if site_id is not None and capacity
    }
    rate = await _per_site_rate(session, now - timedelta(seconds=RATE_SECONDS))
    active_total, active = await _active_clients(session, now - timedelta(minutes=ACTIVE_MINUTES))
    hour = await _minute_sums(session, now - timedelta(minutes=MIX_MINUTES))
    midnight = now.replace(hour=0, minute=0, second=0, microsecond=0)
    today = await _minute_sums(session, midnight)
    feeds = await _newest_per_site(session, names, SITE_FEED_SIZE)
    sites = []
    for site_id, name in names.items():
        count, size = rate.get(site_id, (0, 0))
        sites.append(
            {
                "id": site_id,
                "name": name,
                "requestsPerMinute": count,
                "capacityRpm": capacities.get(site_id),
                "capacityPercent": site_settings.capacity_percent(count, capacities.get(site_id)),
                "bytesPerSecond": round(size / RATE_SECONDS),
                "activeClients": active.get(site_id, 0),
                "lastHour": hour.get(site_id, _zero_mix()),
                "signupsToday": today.get(site_id, {}).get("signups", 0),
                "feed": feeds.get(site_id, []),
            }
        )
    last_hour = _zero_mix()
    for part in hour.values():
        last_hour = _added(last_hour, part)
    # Overall: the sites that have a capacity, against the sum of their capacities (None when none has one).
    with_capacity = sum(rate.get(site_id, (0, 0))[0] for site_id in capacities)
    return {
        "updatedAt": now.isoformat(),
        "requestsPerMinute": sum(count for count, _size in rate.values()),
        "capacityPercent": site_settings.capacity_percent(with_capacity, sum(capacities.values()) or None),
        "bytesPerSecond": round(sum(size for _count, size in rate.values()) / RATE_SECONDS),
        "activeClients": active_total,
        "lastHour": last_hour,
        "signupsToday": sum(part.get("signups", 0) for part in today.values()),
        "topPaths": await _top_paths(session, now - timedelta(minutes=TOP_PATH_MINUTES)),
        "feed": await _newest(session, names, None, FEED_SIZE),
        "sites": sites,
    }


async def user_scan(session: AsyncSession, now: datetime | None = None) -> dict[str, Any]:
    """User Scan: every client seen in the last day, classified, and the most recent ones with the reason."""
    now = now or utcnow()
    since = now - timedelta(hours=CLIENT_HOURS)
    names = await _site_names(session)
    seen = await session.exec(
        select(TrafficRequest.client, func.max(TrafficRequest.time), func.count(), func.max(TrafficRequest.site_id))
        .where(col(TrafficRequest.time) >= since)
        .group_by(col(TrafficRequest.client))
        .order_by(func.max(TrafficRequest.time).desc())
    )
    clients = seen.all()
    detections = (
        await session.exec(
            select(TrafficDetection).where(col(TrafficDetection.created_at) >= since).order_by(col(TrafficDetection.id).desc())
        )
    ).all()
    newest_detection: dict[str, TrafficDetection] = {}
    for found in detections:
        newest_detection.setdefault(found.client, found)
    covering = await decisions.cover(session, now)
    counts = {"clean": 0, "suspicious": 0, "blocked": 0}
    listed: dict[str, list[dict[str, Any]]] = {"blocked": [], "suspicious": [], "clean": []}
    for client, last_seen, requests, site_id in clients:
        decision = covering.of(client)
        detection = newest_detection.get(client)
        if decision is not None:
            verdict = "blocked"
            reason = f"{decision.type.value} until {as_utc(decision.until).strftime('%H:%M')} UTC: {decisions.why(decision)}"
        elif detection is not None:
            verdict = "suspicious"
            reason = f"{detection.scenario} fired at {as_utc(detection.created_at).strftime('%H:%M')} UTC"
        else:
            verdict, reason = "clean", "no scenario fired"
        counts[verdict] += 1
        if len(listed[verdict]) < RECENT_CLIENTS:  # the clients come most recently seen first
            site = names.get(detection.site_id if detection else site_id, "?")
            listed[verdict].append(
                {
                    "client": client,
                    "site": site,
                    "verdict": verdict,
                    "reason": _shown(reason),
                    "requests": int(requests),
                    "lastSeen": as_utc(last_seen).isoformat(),
                }
            )
    # What needs a look first: the blocked, then the suspicious, then the clean, each most recently seen first.
    recent = (listed["blocked"] + listed["suspicious"] + listed["clean"])[:RECENT_CLIENTS]
    return {"updatedAt": now.isoformat(), "counts": counts, "recent": recent}
