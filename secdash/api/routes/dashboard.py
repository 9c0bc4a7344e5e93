"""Sites, the overview and security events (spec section 7)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter
from pydantic import BaseModel

from secdash.api.deps import AppSettings, CurrentUser, DbSession
from secdash.services import dashboard, events, sites

router = APIRouter(prefix="/api", tags=["dashboard"])


class SiteIn(BaseModel):
    name: str = ""
    url: str = ""
    allowPrivate: bool = False


class ResolveIn(BaseModel):
    note: str = ""


@router.post("/init-sites")
async def init_sites(user: CurrentUser, session: DbSession, settings: AppSettings) -> list[dict[str, Any]]:
    created = await sites.init_default_sites(session=session, settings=settings, actor=user)
    return [dashboard.site_public(site) for site in created]


@router.get("/dashboard/overview")
async def read_overview(user: CurrentUser, session: DbSession) -> dict[str, Any]:
    return await dashboard.overview(session=session)


@router.get("/sites")
async def read_sites(user: CurrentUser, session: DbSession) -> list[dict[str, Any]]:
    return [dashboard.site_public(site) for site in await sites.list_sites(session=session)]


@router.post("/sites", status_code=201)
async def create_site(body: SiteIn, user: CurrentUser, session: DbSession) -> dict[str, Any]:
    site = await sites.create_site(session=session, actor=user, name=body.name, url=body.url, allow_private=body.allowPrivate)
    return dashboard.site_public(site)


@router.put("/sites/{site_id}")
async def update_site(site_id: int, body: SiteIn, user: CurrentUser, session: DbSession) -> dict[str, Any]:
    site = await sites.update_site(
        session=session, actor=user, site_id=site_id, name=body.name, url=body.url, allow_private=body.allowPrivate
    )
    return dashboard.site_public(site)


@router.delete("/sites/{site_id}")
async def delete_site(site_id: int, user: CurrentUser, session: DbSession) -> dict[str, str]:
    await sites.delete_site(session=session, actor=user, site_id=site_id)
    return {"message": "Site removed"}


@router.get("/sites/{site_id}/checks")
async def read_site_checks(site_id: int, user: CurrentUser, session: DbSession) -> list[dict[str, Any]]:
    await sites.get_site(session=session, site_id=site_id)
    return await dashboard.site_history(session=session, site_id=site_id)


@router.get("/security-events")
async def read_security_events(
    user: CurrentUser, session: DbSession, siteId: str | None = None, severity: str | None = None,  # noqa: N803
    resolved: str | None = None, limit: str | None = None,
) -> list[dict[str, Any]]:
    filters = events.parse_filters(site_id=siteId, severity=severity, resolved=resolved, limit=limit)
    rows = await events.list_events(session=session, **filters)
    return [dashboard.event_public(event, name) for event, name in rows]


@router.post("/security-events/{event_id}/resolve")
async def resolve_security_event(event_id: int, body: ResolveIn, user: CurrentUser, session: DbSession) -> dict[str, Any]:
    event = await events.resolve_event(session=session, actor=user, event_id=event_id, note=body.note)
    site = await sites.get_site(session=session, site_id=event.site_id) if event.site_id else None
    return dashboard.event_public(event, site.name if site else None)
