"""Monitored sites: the four defaults, and what administrators add, change or remove."""

from __future__ import annotations

import asyncio
import ipaddress
import logging
from urllib.parse import urlsplit

from sqlalchemy import func
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from secdash.core.config import Settings, get_settings
from secdash.core.db import session_scope
from secdash.core.demo_sites import DEMO_SITES
from secdash.core.unit import commit, end_read, mark_changed
from secdash.models import LogCategory, Site, SiteStatus, UserPublic, utcnow
from secdash.services import audit
from secdash.services.errors import Conflict, Invalid, NotFound
from secdash.services.identity.permissions import require_admin
from secdash.services.monitoring.site_tags import clean_tags
from secdash.services.once import insert_missing
from secdash.services.probe import MAX_URL_LENGTH, ProbeRefused, address_problem, resolve, validate_target
from secdash.services.problems import events
from secdash.services.traffic import site_settings
from secdash.services.traffic.site_settings import TrafficSettings

log = logging.getLogger(__name__)

TOPIC = "sites"
# Published when a site is added or changed: the monitor probes it at once (monitor.probe_on_request), in its own
# task after this commit, so the save never waits for the probe and no transaction stays open across it.
PROBE_TOPIC = "site-probes"


def site_topic(site_id: int | None) -> str:
    """The keyed topic of one site (`site:3`): its checks and status changed."""
    return f"site:{site_id}"


MAX_SITES = 10_000  # rounds shard across workers (rounds.py); one worker keeps fewer on 60-s rounds: docs/benchmarks.md
MAX_NAME_LENGTH = 80
MAX_HOST_LENGTH = 253
RESOLVE_TIMEOUT_SECONDS = 5.0
ALLOW_PRIVATE_HINT = "tick 'Allow a private or local address' to monitor it"


def _domain_of(url: str) -> str:
    """host[:port] of a validated URL, lower-cased; IPv6 literals in brackets."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    host = f"[{host}]" if ":" in host else host
    return f"{host}:{parts.port}" if parts.port else host


domain_of = _domain_of  # the import's name for it (services/monitoring/site_import.py)


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
    defaults = [
        Site(
            name=name,
            url=f"{base}/demo/{slug}/",
            domain=_domain_of(f"{base}/demo/{slug}/"),
            is_demo=True,
            default_slug=slug,
            probe_requested_at=utcnow(),
        )
        for name, slug in DEMO_SITES  # the four platforms (spec section 1), each at its bundled demo site
    ]
    # Concurrent first loads all get here: the unique default_slug lets only one of them create each site.
    if not await insert_missing(session, defaults, "default_slug"):
        await session.commit()
        return await list_sites(session=session)
    mark_changed(session, TOPIC)
    mark_changed(session, PROBE_TOPIC)
    audit.record(
        session,
        category=LogCategory.system,
        action="Default sites created",
        description="The four platform sites were created, pointing at the bundled demo sites",
        actor_user_id=actor.id if actor else None,
        details={"base": base},
    )
    await commit(session)
    return await list_sites(session=session)


async def seed_default_sites() -> None:
    """Lifespan task: create the four demo sites when there are none, once per server start. It runs in the
    server's own process, which knows where it serves them (its port); a page read never creates them."""
    try:
        async with session_scope() as session:
            await init_default_sites(session=session, settings=get_settings())
    except Exception:
        log.exception("could not create the default sites")


def _clean(name: str, url: str) -> tuple[str, str]:
    return clean_name_and_url(name, url)


def clean_name_and_url(name: str, url: str) -> tuple[str, str]:
    """A site's name and URL, trimmed and checked (Invalid names what is wrong): the rule of the form, the API and
    the import (services/monitoring/site_import.py). No DNS: `check_target` resolves."""
    name = (name or "").strip()
    if not name:
        raise Invalid("name is required")
    if len(name) > MAX_NAME_LENGTH:
        raise Invalid(f"name must be at most {MAX_NAME_LENGTH} characters")
    url = (url or "").strip()
    if len(url) > MAX_URL_LENGTH:
        raise Invalid(f"url must be at most {MAX_URL_LENGTH:,} characters (it has {len(url):,})")
    try:
        url = validate_target(url)
    except ProbeRefused as exc:
        raise Invalid(f"url: {exc}") from None
    if len(urlsplit(url).hostname or "") > MAX_HOST_LENGTH:
        raise Invalid(f"url: the host name is longer than {MAX_HOST_LENGTH} characters")
    return name, url


async def _check_target(session: AsyncSession, url: str, *, allow_private: bool) -> None:
    """Resolve the URL's host (briefly) and refuse non-global addresses unless allowed. The probe checks
    again on every connection: this check is for a clear message when the site is saved."""
    await end_read(session)  # no pooled connection held across the DNS lookup
    await check_target(url, allow_private=allow_private)


async def check_target(url: str, *, allow_private: bool) -> None:
    """`_check_target` without a session: resolve the validated URL's host (within RESOLVE_TIMEOUT_SECONDS) and refuse
    a non-global address unless allowed (Invalid, the form's message). The import runs many at once."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    try:
        async with asyncio.timeout(RESOLVE_TIMEOUT_SECONDS):
            addresses = await resolve(host, parts.port or (443 if parts.scheme == "https" else 80))
    except TimeoutError:
        raise Invalid(f"url: {host} did not resolve within {RESOLVE_TIMEOUT_SECONDS:g} s; check the name") from None
    except (OSError, UnicodeError):
        addresses = []
    if not addresses:
        raise Invalid(f"url: {host} does not resolve to an address; check the name")
    if allow_private:
        return
    for address in addresses:
        problem = address_problem(address)
        if problem is None:
            continue
        if _is_literal(host, address):
            raise Invalid(f"url: {host} is {problem}; {ALLOW_PRIVATE_HINT}")
        raise Invalid(f"url: {host} resolves to {address}, {problem}; {ALLOW_PRIVATE_HINT}")


def _is_literal(host: str, address: str) -> bool:
    try:
        return ipaddress.ip_address(host) == ipaddress.ip_address(address)
    except ValueError:
        return False


async def create_site(
    *,
    session: AsyncSession,
    actor: UserPublic,
    name: str,
    url: str,
    allow_private: bool = False,
    traffic: TrafficSettings | None = None,
    tags: list[str] | None = None,
) -> Site:
    """Add a site to monitor (admins only; audited), with its traffic settings (services/traffic/site_settings.py:
    checked by `site_settings.clean`) and its tags (site_tags.clean_tags)."""
    require_admin(actor, "add sites")
    name, url = _clean(name, url)
    cleaned_tags = clean_tags(tags or [])
    await _check_target(session, url, allow_private=allow_private)
    if (await session.exec(select(func.count()).select_from(Site))).one() >= MAX_SITES:
        raise Conflict(f"at most {MAX_SITES} sites can be monitored")
    site = Site(
        name=name,
        url=url,
        domain=_domain_of(url),
        allow_private=allow_private,
        tags=cleaned_tags,
        probe_requested_at=utcnow(),
    )
    if traffic is not None:
        traffic = site_settings.clean(traffic.capacity_rpm, traffic.signup_route)  # the rule is checked here too
        site.capacity_rpm, site.signup_route = traffic.capacity_rpm, traffic.signup_route
    session.add(site)
    await session.flush()
    mark_changed(session, TOPIC)
    mark_changed(session, PROBE_TOPIC)
    audit.record(
        session,
        category=LogCategory.system,
        action="Site added",
        description=f"{actor.email} added {name} ({url})",
        actor_user_id=actor.id,
        details={"siteId": site.id, "url": url, "allowPrivate": allow_private} | ({"tags": cleaned_tags} if cleaned_tags else {}),
    )
    await commit(session)
    return site


async def update_site(
    *,
    session: AsyncSession,
    actor: UserPublic,
    site_id: int,
    name: str,
    url: str,
    allow_private: bool = False,
    traffic: TrafficSettings | None = None,
    tags: list[str] | None = None,
) -> Site:
    """Change a site's name or URL, and its traffic settings and tags when given (None: unchanged; admins only;
    audited). It is probed again at once; a new URL starts afresh."""
    require_admin(actor, "change sites")
    site = await get_site(session=session, site_id=site_id)
    name, url = _clean(name, url)
    cleaned_tags = None if tags is None else clean_tags(tags)
    # Demo sites keep their URL on this server; a changed URL, or "allow private" taken away, is checked.
    if url != site.url or (site.allow_private and not allow_private and not site.is_demo):
        await _check_target(session, url, allow_private=allow_private)
    before: dict[str, object] = {"name": site.name, "url": site.url}
    after: dict[str, object] = {"name": name, "url": url}
    if traffic is not None:
        traffic = site_settings.clean(traffic.capacity_rpm, traffic.signup_route)  # the rule is checked here too
        before |= {"capacityRpm": site.capacity_rpm, "signupRoute": site.signup_route}
        after |= {"capacityRpm": traffic.capacity_rpm, "signupRoute": traffic.signup_route}
        site.capacity_rpm, site.signup_route = traffic.capacity_rpm, traffic.signup_route
    if cleaned_tags is not None and cleaned_tags != list(site.tags or []):
        before["tags"], after["tags"] = list(site.tags or []), cleaned_tags
        site.tags = cleaned_tags
    if url != site.url:
        site.is_demo = False
        site.status, site.response_time_ms, site.grade, site.score = SiteStatus.warning, None, None, None
        site.tls_days_left, site.status_code, site.last_error, site.last_checked_at = None, None, None, None
        site.ttfb_ms, site.redirects, site.tls_expires_at = None, None, None
    site.name, site.url, site.domain, site.allow_private = name, url, _domain_of(url), allow_private
    site.probe_requested_at = utcnow()
    session.add(site)
    mark_changed(session, TOPIC)
    mark_changed(session, site_topic(site_id))
    mark_changed(session, PROBE_TOPIC)
    audit.record(
        session,
        category=LogCategory.system,
        action="Site changed",
        description=f"{actor.email} changed {name}",
        actor_user_id=actor.id,
        details={"siteId": site_id, "before": before, "after": after},
    )
    await commit(session)
    return site


async def delete_site(*, session: AsyncSession, actor: UserPublic, site_id: int) -> None:
    """Stop monitoring a site (admins only; audited). Its open problems are closed in the same transaction (nothing
    is left to act on for a site that is gone); its records stay, without the site, naming it."""
    require_admin(actor, "remove sites")
    site = await get_site(session=session, site_id=site_id)
    closed = await events.close_of_removed_site(session, site_id=site_id, site_name=site.name, by=actor.email)
    await session.delete(site)
    mark_changed(session, TOPIC)
    mark_changed(session, site_topic(site_id))
    audit.record(
        session,
        category=LogCategory.system,
        action="Site removed",
        description=f"{actor.email} removed {site.name}" + (f"; {closed} open problems closed" if closed else ""),
        actor_user_id=actor.id,
        details={"siteId": site_id, "url": site.url, "closedProblems": closed},
    )
    await commit(session)
