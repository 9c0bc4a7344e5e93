"""The dashboard overview: sites, counts, activity, simulated traffic and recent events in one read."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from secdash.models import AiActivity, SecurityEvent, Site, SiteCheck, as_utc
from secdash.models.public import ActivityPublic, EventPublic, SiteCheckPublic, SitePublic
from secdash.services.agents import activities
from secdash.services.monitoring import simulation, sites
from secdash.services.problems import events


def _iso(value: datetime | None) -> str | None:
    return as_utc(value).isoformat().replace("+00:00", "Z") if value else None


# The JSON of each shape is defined once, by its public model (models/public.py); these dict forms
# serve callers that still index dicts (the dashboard states). New code uses the typed shapes.
def site_public(site: Site) -> dict[str, Any]:
    return SitePublic.of(site).model_dump(mode="json")


def event_public(event: SecurityEvent, site_name: str | None) -> dict[str, Any]:
    return EventPublic.of(event, site_name).model_dump(mode="json")


def activity_public(activity: AiActivity) -> dict[str, Any]:
    return ActivityPublic.of(activity).model_dump(mode="json")


async def site_checks(*, session: AsyncSession, site_id: int, limit: int = 120) -> list[SiteCheckPublic]:
    """The newest checks of a site, oldest first (for the response-time chart)."""
    query = select(SiteCheck).where(SiteCheck.site_id == site_id).order_by(col(SiteCheck.checked_at).desc()).limit(limit)
    return [SiteCheckPublic.of(row) for row in reversed(list(await session.exec(query)))]


async def site_history(*, session: AsyncSession, site_id: int, limit: int = 120) -> list[dict[str, Any]]:
    """site_checks as dicts."""
    return [check.model_dump(mode="json") for check in await site_checks(session=session, site_id=site_id, limit=limit)]


def overview_from(
    *,
    sites: list[dict[str, Any]],
    threats_blocked: int,
    recent_events: list[dict[str, Any]],
    activities: list[dict[str, Any]],
    snapshot: dict[str, Any] | None,
) -> dict[str, Any]:
    """The overview's shape (spec section 7) from its parts, already in their public shapes."""
    traffic = None
    user_stats = None
    if snapshot:
        traffic = {
            "requestsPerMinute": snapshot["requests_per_minute"],
            "activeUsers": snapshot["active_users"],
            "bandwidth": snapshot["bandwidth"],
            "capacityPercent": snapshot["capacityPercent"],
            "simulated": True,
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
