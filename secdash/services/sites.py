"""Monitored sites: the four defaults, and what administrators add, change or remove."""

from __future__ import annotations

from urllib.parse import urlsplit

from sqlalchemy import func
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from secdash.core.config import Settings
from secdash.models import LogCategory, Site, UserPublic
from secdash.services import audit
from secdash.services.errors import Conflict, Invalid, NotFound
from secdash.services.permissions import require_admin
from secdash.services.probe import ProbeRefused, validate_target
from secdash.services.unit import commit, mark_changed

TOPIC = "sites"
# The four platforms (spec section 1); by default each points at its bundled demo site.
DEFAULT_SITES = (("Stock", "stock"), ("Tour", "tour"), ("Gem", "gem"), ("Shares", "shares"))
MAX_SITES = 1000


def _domain_of(url: str) -> str:
    parts = urlsplit(url)
    path = parts.path.rstrip("/")
    return f"{parts.netloc}{path}"


async def list_sites(*, session: AsyncSession) -> list[Site]:
    return list(await session.exec(select(Site).order_by(col(Site.id))))


async def get_site(*, session: AsyncSession, site_id: int) -> Site:
    site = await session.get(Site, site_id)
    if site is None:
        raise NotFound("no site with this id")
    return site


async def init_default_sites(*, session: AsyncSession, settings: Settings, actor: UserPublic | None = None) -> list[Site]:
    """Create the four default sites when there are none; harmless when called again."""
    if (await session.exec(select(func.count()).select_from(Site))).one():
        return await list_sites(session=session)
    base = settings.demo_base_url
    for name, slug in DEFAULT_SITES:
        url = f"{base}/demo/{slug}/"
        session.add(Site(name=name, url=url, domain=_domain_of(url), is_demo=True))
    mark_changed(session, TOPIC)
    audit.record(
        session, category=LogCategory.system, action="Default sites created",
        description="The four platform sites were created, pointing at the bundled demo sites",
        actor_user_id=actor.id if actor else None, details={"base": base},
    )
    await commit(session)
    return await list_sites(session=session)


def _clean(name: str, url: str) -> tuple[str, str]:
    name = (name or "").strip()
    if not name:
        raise Invalid("name is required")
    if len(name) > 80:
        raise Invalid("name must be at most 80 characters")
    try:
        url = validate_target((url or "").strip())
    except ProbeRefused as exc:
        raise Invalid(f"url: {exc}") from None
    return name, url


async def create_site(*, session: AsyncSession, actor: UserPublic, name: str, url: str, allow_private: bool = False) -> Site:
    """Add a site to monitor (admins only; audited)."""
    require_admin(actor, "add sites")
    name, url = _clean(name, url)
    if (await session.exec(select(func.count()).select_from(Site))).one() >= MAX_SITES:
        raise Conflict(f"at most {MAX_SITES} sites can be monitored")
    site = Site(name=name, url=url, domain=_domain_of(url), allow_private=allow_private)
    session.add(site)
    await session.flush()
    mark_changed(session, TOPIC)
    audit.record(
        session, category=LogCategory.system, action="Site added", description=f"{actor.email} added {name} ({url})",
        actor_user_id=actor.id, details={"siteId": site.id, "url": url, "allowPrivate": allow_private},
    )
    await commit(session)
    return site


async def update_site(
    *, session: AsyncSession, actor: UserPublic, site_id: int, name: str, url: str, allow_private: bool = False
) -> Site:
    """Change a site's name or URL (admins only; audited). A new URL is probed afresh."""
    require_admin(actor, "change sites")
    site = await get_site(session=session, site_id=site_id)
    name, url = _clean(name, url)
    before = {"name": site.name, "url": site.url}
    if url != site.url:
        site.is_demo = False
        site.status, site.response_time_ms, site.grade, site.score = "warning", None, None, None
        site.tls_days_left, site.status_code, site.last_error, site.last_checked_at = None, None, None, None
    site.name, site.url, site.domain, site.allow_private = name, url, _domain_of(url), allow_private
    session.add(site)
    mark_changed(session, TOPIC)
    audit.record(
        session, category=LogCategory.system, action="Site changed", description=f"{actor.email} changed {name}",
        actor_user_id=actor.id, details={"siteId": site_id, "before": before, "after": {"name": name, "url": url}},
    )
    await commit(session)
    return site


async def delete_site(*, session: AsyncSession, actor: UserPublic, site_id: int) -> None:
    """Stop monitoring a site (admins only; audited); its events stay, without the site."""
    require_admin(actor, "remove sites")
    site = await get_site(session=session, site_id=site_id)
    await session.delete(site)
    mark_changed(session, TOPIC)
    audit.record(
        session, category=LogCategory.system, action="Site removed", description=f"{actor.email} removed {site.name}",
        actor_user_id=actor.id, details={"siteId": site_id, "url": site.url},
    )
    await commit(session)
