"""The dashboard overview: sites, counts, activity, simulated traffic and recent events in one read."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from secdash.models import AiActivity, SecurityEvent, Site, SiteCheck, as_utc
from secdash.services import activities, events, simulation, sites


def _iso(value: datetime | None) -> str | None:
    return as_utc(value).isoformat().replace("+00:00", "Z") if value else None


def site_public(site: Site) -> dict[str, Any]:
    return {
        "id": site.id, "name": site.name, "domain": site.domain, "url": site.url, "securityStatus": site.status,
        "responseTime": site.response_time_ms, "statusCode": site.status_code, "tlsDaysLeft": site.tls_days_left,
        "grade": site.grade, "score": site.score, "findings": site.findings or [], "lastError": site.last_error,
        "lastCheckedAt": _iso(site.last_checked_at), "isDemo": site.is_demo, "allowPrivate": site.allow_private,
    }


def event_public(event: SecurityEvent, site_name: str | None) -> dict[str, Any]:
    return {
        "id": event.id, "createdAt": _iso(event.created_at), "siteId": event.site_id, "eventType": event.event_type,
        "severity": event.severity, "description": event.description, "resolved": event.resolved,
        "aiAction": event.ai_action, "sourceIp": event.source_ip, "userAgent": event.user_agent, "site": site_name,
        "source": event.source, "details": event.details or {}, "resolvedBy": event.resolved_by,
        "resolvedAt": _iso(event.resolved_at), "resolutionNote": event.resolution_note,
    }


def activity_public(activity: AiActivity) -> dict[str, Any]:
    return {
        "id": activity.id, "activityType": activity.activity_type, "target": activity.target,
        "description": activity.description, "status": activity.status, "createdAt": _iso(activity.created_at),
        "simulated": activity.simulated,
    }


async def site_history(*, session: AsyncSession, site_id: int, limit: int = 120) -> list[dict[str, Any]]:
    """The newest checks of a site, oldest first (for the response-time chart)."""
    query = (
        select(SiteCheck).where(SiteCheck.site_id == site_id).order_by(col(SiteCheck.checked_at).desc()).limit(limit)
    )
    rows = list(await session.exec(query))
    return [
        {"checkedAt": _iso(row.checked_at), "responseTime": row.response_ms, "status": row.status,
         "statusCode": row.status_code, "grade": row.grade, "error": row.error}
        for row in reversed(rows)
    ]


def overview_from(
    *, sites: list[dict[str, Any]], threats_blocked: int, recent_events: list[dict[str, Any]],
    activities: list[dict[str, Any]], snapshot: dict[str, Any] | None,
) -> dict[str, Any]:
    """The overview's shape (spec section 7) from its parts, already in their public shapes."""
    traffic = None
    user_stats = None
    if snapshot:
        traffic = {
            "requestsPerMinute": snapshot["requests_per_minute"], "activeUsers": snapshot["active_users"],
            "bandwidth": snapshot["bandwidth"], "capacityPercent": snapshot["capacityPercent"], "simulated": True,
        }
        user_stats = dict(snapshot["user_stats"]) | {"simulated": True}
    return {
        "sitesCount": len(sites),
        "threatsBlocked": threats_blocked,
        "sites": sites,
        "aiActivities": activities,
        "trafficData": traffic,
        "userStats": user_stats,
        "recentEvents": recent_events,
    }


async def overview(*, session: AsyncSession) -> dict[str, Any]:
    """The overview read straight from the database in the caller's session (the shared, cached one
    that pages and the API serve is `read_models.overview()`)."""
    all_sites = await sites.list_sites(session=session)
    recent_events = await events.list_events(session=session, resolved=False, limit=events.ALERTS_SIZE)
    return overview_from(
        sites=[site_public(site) for site in all_sites],
        threats_blocked=await events.count_threats_blocked(session=session),
        recent_events=[event_public(event, name) for event, name in recent_events],
        activities=[activity_public(a) for a in await activities.recent(session=session)],
        snapshot=await simulation.read_snapshot(session=session),
    )
