"""Operations on many sites at once: pause, resume and remove (admins only; one audit entry per operation).

Each takes the ids the operator chose; ids that name no site are left out of the count (a site removed meanwhile), so
a repeated request changes nothing and says so. At most MAX_BULK ids per call: the caller pages a larger selection.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from secdash.core.unit import commit, mark_changed
from secdash.models import LogCategory, Site, UserPublic, utcnow
from secdash.services import audit
from secdash.services.errors import Invalid
from secdash.services.identity.permissions import require_admin
from secdash.services.monitoring import sites
from secdash.services.problems import events

MAX_BULK = 10_000


@dataclass(frozen=True)
class BulkOutcome:
    """What a bulk operation did: how many sites it changed, and how many of those asked for were already so or gone."""

    changed: int
    unchanged: int
    missing: int


def _clean_ids(site_ids: Sequence[int]) -> list[int]:
    ids = sorted({int(site_id) for site_id in site_ids})
    if not ids:
        raise Invalid("choose at least one site")
    if len(ids) > MAX_BULK:
        raise Invalid(f"at most {MAX_BULK:,} sites at once (you chose {len(ids):,})")
    return ids


async def _sites(session: AsyncSession, ids: list[int]) -> list[Site]:
    return list(await session.exec(select(Site).where(col(Site.id).in_(ids)).order_by(col(Site.id))))


async def set_paused(*, session: AsyncSession, actor: UserPublic, site_ids: Sequence[int], paused: bool) -> BulkOutcome:
    """Pause (or resume) the monitoring of the chosen sites. A paused site keeps its history and problems and is not
    probed; a resumed one is probed at once."""
    require_admin(actor, "pause or resume monitoring")
    ids = _clean_ids(site_ids)
    found = await _sites(session, ids)
    to_change = [site for site in found if site.paused != paused]
    now = utcnow()
    for site in to_change:
        site.paused = paused
        if not paused:
            site.probe_requested_at = now  # probed at once, as a saved site is
        session.add(site)
        mark_changed(session, sites.site_topic(site.id))
    outcome = BulkOutcome(changed=len(to_change), unchanged=len(found) - len(to_change), missing=len(ids) - len(found))
    if to_change:
        mark_changed(session, sites.TOPIC)
        if not paused:
            mark_changed(session, sites.PROBE_TOPIC)
        verb = "paused" if paused else "resumed"
        audit.record(
            session,
            category=LogCategory.system,
            action="Monitoring paused" if paused else "Monitoring resumed",
            description=f"{actor.email} {verb} monitoring of {_named(to_change)}",
            actor_user_id=actor.id,
            details={"siteIds": [site.id for site in to_change]},
        )
    await commit(session)
    return outcome


async def delete_sites(*, session: AsyncSession, actor: UserPublic, site_ids: Sequence[int]) -> BulkOutcome:
    """Stop monitoring the chosen sites: as sites.delete_site for each (their open problems closed, their records
    kept naming them), in one transaction and one audit entry."""
    require_admin(actor, "remove sites")
    ids = _clean_ids(site_ids)
    found = await _sites(session, ids)
    closed = 0
    for site in found:
        assert site.id is not None
        closed += await events.close_of_removed_site(session, site_id=site.id, site_name=site.name, by=actor.email)
        await session.delete(site)
        mark_changed(session, sites.site_topic(site.id))
    if found:
        mark_changed(session, sites.TOPIC)
        audit.record(
            session,
            category=LogCategory.system,
            action="Sites removed",
            description=f"{actor.email} removed {_named(found)}" + (f"; {closed} open problems closed" if closed else ""),
            actor_user_id=actor.id,
            details={
                "siteIds": [site.id for site in found],
                "urls": [site.url for site in found][:100],
                "closedProblems": closed,
            },
        )
    await commit(session)
    return BulkOutcome(changed=len(found), unchanged=0, missing=len(ids) - len(found))


def _named(chosen: list[Site]) -> str:
    """ "Stock", "Stock and Tour", or "3 sites (Stock, Tour, Gem)" / "250 sites (Stock, Tour, Gem, ...)"."""
    names = [site.name for site in chosen]
    if len(names) == 1:
        return names[0]
    if len(names) == 2:
        return f"{names[0]} and {names[1]}"
    shown = ", ".join(names[:3]) + (", ..." if len(names) > 3 else "")
    return f"{len(names)} sites ({shown})"
