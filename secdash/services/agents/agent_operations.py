"""The operations side of an agent's situation (services/agents/agent_context.py reads the rest): the defense each
demo site enforces, the drills run against the sites and what the monitor measured while they ran, which open
problems have a fix ready (Fix Mode's offline recipe, or a proposal waiting for review), and what changed in the
last 24 hours. Returned as plain data (secdash/ai/situation.py); the agents rank, compare and explain from it.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Sequence
from datetime import datetime, timedelta
from urllib.parse import urlsplit

from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from secdash.ai.operations import ATTACK_LABELS
from secdash.ai.situation import ChangeFact, DefenseFact, DrillFact, RateLimitFact
from secdash.models import BattleOperation, DemoDefense, SecurityEvent, Site, SiteCheck, as_utc
from secdash.models.fixes import ACTIVE_STATUSES, Fix, FixStatus
from secdash.services.battle import defense
from secdash.services.errors import Invalid
from secdash.services.fix import problems, recipes, site_fixes

MAX_DRILLS = 20
MAX_CHANGES = 30
CHANGES_WINDOW = timedelta(hours=24)
_FIX_WORDS = {
    FixStatus.proposing: "is being written",
    FixStatus.proposed: "waits for review",
    FixStatus.applied: "is applied and being verified",
}


def iso(value: datetime | None) -> str | None:
    return as_utc(value).isoformat(timespec="seconds").replace("+00:00", "Z") if value else None


def is_public(url: str) -> bool:
    """A site on the internet: its host is a name (not localhost) or a global address."""
    host = (urlsplit(url).hostname or "").lower()
    if not host or host == "localhost" or host.endswith((".localhost", ".local", ".internal")):
        return False
    try:
        return ipaddress.ip_address(host).is_global
    except ValueError:
        return "." in host


# --- defenses ------------------------------------------------------------------------------------------


def _defense_fact(site_name: str, view: defense.DefenseView) -> DefenseFact:
    config = view.config
    uploads = [f"blocks uploads containing {s.name}" for s in config.uploads.signatures]
    if config.uploads.blocked_extensions:
        uploads.append(f"blocks file types {', '.join(config.uploads.blocked_extensions)}")
    if config.uploads.max_bytes:
        uploads.append(f"caps uploads at {config.uploads.max_bytes} bytes")
    urls = [
        words
        for flag, words in (
            (config.urls.block_punycode, "blocks punycode links"),
            (config.urls.block_lookalikes, "blocks look-alike domains"),
        )
        if flag
    ]
    if config.urls.blocked_domains:
        urls.append(f"blocks {len(config.urls.blocked_domains)} listed domains")
    return DefenseFact(
        site=site_name,
        revision=view.revision,
        source=view.source,
        updated_at=iso(view.updated_at),
        rate_limits=tuple(
            RateLimitFact(r.name, r.requests, r.window_seconds, tuple(r.endpoints or ())) for r in config.rate_limits
        ),
        patterns=tuple(p.name for p in config.patterns),
        uploads=tuple(uploads),
        urls=tuple(urls),
    )


async def defenses(session: AsyncSession, sites: Sequence[Site]) -> tuple[DefenseFact, ...]:
    """The defense each demo site among `sites` enforces now."""
    return tuple(
        [
            _defense_fact(site.name, await defense.get_defense(session, site.default_slug))
            for site in sites
            if site.default_slug in defense.DEMO_SLUGS
        ]
    )


# --- drills --------------------------------------------------------------------------------------------


async def drills(session: AsyncSession, sites: Sequence[Site], now: datetime) -> tuple[DrillFact, ...]:
    """The newest drills against `sites` (demo sites), with the monitor's checks of the site while each ran."""
    by_slug = {site.default_slug: site for site in sites if site.default_slug in defense.DEMO_SLUGS}
    if not by_slug:
        return ()
    rows = await session.exec(
        select(BattleOperation)
        .where(col(BattleOperation.site).in_(list(by_slug)))
        .order_by(col(BattleOperation.started_at).desc(), col(BattleOperation.id).desc())
        .limit(MAX_DRILLS)
    )
    facts = []
    for op in rows:
        site = by_slug[op.site]
        until = op.finished_at or now
        checks = list(
            await session.exec(
                select(SiteCheck).where(
                    SiteCheck.site_id == site.id, col(SiteCheck.checked_at) >= op.started_at, col(SiteCheck.checked_at) <= until
                )
            )
        )
        times = [check.response_ms for check in checks if check.response_ms is not None]
        after = op.after or {}
        facts.append(
            DrillFact(
                id=op.id or 0,
                site=site.name,
                attack_type=str(op.attack_type),
                status=str(op.status),
                started_at=iso(op.started_at) or "",
                finished_at=iso(op.finished_at),
                attack_sent=int(after.get("attackSent", 0)),
                attack_blocked=int(after.get("attackBlocked", 0)),
                benign_sent=int(after.get("benignSent", 0)),
                benign_blocked=int(after.get("benignBlocked", 0)),
                effectiveness=op.effectiveness,
                checks_during=len(checks),
                max_response_ms=max(times) if times else None,
                failed_checks_during=sum(1 for check in checks if check.status == "critical"),
            )
        )
    return tuple(facts)


# --- fixes ready ---------------------------------------------------------------------------------------


def _recipe_words(facts: problems.ProblemFacts) -> str | None:
    if facts.kind == "code":
        recipe = recipes.recipe_for(facts.rule)
        return f"Fix Mode has an offline recipe: {recipe.explanation}" if recipe else None
    header = site_fixes.recipe_for(facts.rule)
    if header is None:
        return None
    sent = "; ".join(f"`{name}: {value}`" for name, value in header.headers.items())
    return f"Fix Mode has an offline recipe: send {sent}"


async def fixes_ready(session: AsyncSession, events: Sequence[SecurityEvent], sites: dict[int, Site]) -> dict[int, str]:
    """For each open problem with a fix ready, what it is: a fix in progress or in review, else Fix Mode's recipe."""
    fixable = [event for event in events if event.id and problems.is_fixable(event)]
    if not fixable:
        return {}
    latest: dict[int, Fix] = {}
    for fix in await session.exec(select(Fix).where(col(Fix.event_id).in_([e.id for e in fixable])).order_by(col(Fix.id))):
        latest[fix.event_id] = fix
    ready: dict[int, str] = {}
    for event in fixable:
        current = latest.get(event.id or 0)
        if current is not None and current.status in ACTIVE_STATUSES:
            ready[event.id or 0] = f"fix #{current.id} {_FIX_WORDS[current.status]} in Fix Mode"
            continue
        try:
            facts = problems.facts_of(event, sites.get(event.site_id or 0))
        except Invalid:  # a site finding whose site is not in this view (or was removed): no fix offered here
            continue
        words = _recipe_words(facts)
        if words:
            ready[event.id or 0] = words
    return ready


# --- what changed --------------------------------------------------------------------------------------


def _label(event: SecurityEvent) -> str:
    return f"finding #{event.id}" if event.source == "scanner" else f"event #{event.id}"


async def changes(
    session: AsyncSession, site_ids: Sequence[int] | None, names: dict[int, str], sites: Sequence[Site], now: datetime
) -> tuple[ChangeFact, ...]:
    """What changed in the last 24 hours (problems opened and closed, drills, fixes, defenses), newest first.
    `site_ids` None: everything (the general agent); else only those sites'."""
    since = now - CHANGES_WINDOW
    found: list[tuple[datetime, ChangeFact]] = []
    query = select(SecurityEvent).where(
        (col(SecurityEvent.created_at) >= since) | (col(SecurityEvent.resolved_at) >= since),
        SecurityEvent.event_type != "vulnerability_fixed",
        SecurityEvent.source != "drill",
    )
    if site_ids is not None:
        query = query.where(col(SecurityEvent.site_id).in_(list(site_ids)))
    for event in await session.exec(query.order_by(col(SecurityEvent.id).desc()).limit(MAX_CHANGES * 2)):
        site = names.get(event.site_id or 0)
        if as_utc(event.created_at) >= since:
            still = " (closed since)" if event.resolved else " (still open)"
            found.append(
                (
                    as_utc(event.created_at),
                    ChangeFact(
                        iso(event.created_at) or "",
                        "opened",
                        f"{_label(event)} opened, {event.severity}: {event.description[:160]}{still}",
                        site,
                    ),
                )
            )
        if event.resolved and event.resolved_at and as_utc(event.resolved_at) >= since:
            note = f": {event.resolution_note[:120]}" if event.resolution_note else ""
            found.append(
                (
                    as_utc(event.resolved_at),
                    ChangeFact(
                        iso(event.resolved_at) or "",
                        "closed",
                        f"{_label(event)} closed by {event.resolved_by or 'someone'}{note} ({event.description[:100]})",
                        site,
                    ),
                )
            )
    slugs = {site.default_slug: site.name for site in sites if site.default_slug}
    drill_query = select(BattleOperation).where(col(BattleOperation.started_at) >= since)
    if site_ids is not None:
        drill_query = drill_query.where(col(BattleOperation.site).in_(list(slugs)))
    for op in await session.exec(drill_query.limit(MAX_CHANGES)):
        after = op.after or {}
        sent, blocked = int(after.get("attackSent", 0)), int(after.get("attackBlocked", 0))
        measured = f", blocked {blocked} of {sent} attack requests" if sent else ""
        score = f", effectiveness {op.effectiveness}%" if op.effectiveness is not None else ""
        site = slugs.get(op.site, op.site)
        found.append(
            (
                as_utc(op.started_at),
                ChangeFact(
                    iso(op.started_at) or "",
                    "drill",
                    f"drill #{op.id} ({ATTACK_LABELS.get(str(op.attack_type), str(op.attack_type))}) on {site}: "
                    f"{op.status}{measured}{score}",
                    site,
                ),
            )
        )
    fix_query = select(Fix).where(col(Fix.updated_at) >= since)
    if site_ids is not None:
        fix_query = fix_query.where(col(Fix.site_id).in_(list(site_ids)))
    for fix in await session.exec(fix_query.limit(MAX_CHANGES)):
        site = names.get(fix.site_id or 0)
        found.append(
            (
                as_utc(fix.updated_at),
                ChangeFact(iso(fix.updated_at) or "", "fix", f"fix #{fix.id} for problem #{fix.event_id} is {fix.status}", site),
            )
        )
    defense_query = select(DemoDefense).where(col(DemoDefense.updated_at) >= since)
    if site_ids is not None:
        defense_query = defense_query.where(col(DemoDefense.slug).in_(list(slugs)))
    for row in await session.exec(defense_query):
        site = slugs.get(row.slug, row.slug)
        found.append(
            (
                as_utc(row.updated_at),
                ChangeFact(
                    iso(row.updated_at) or "",
                    "defense",
                    f"defense revision {row.revision} deployed on {site} ({row.source})",
                    site,
                ),
            )
        )
    found.sort(key=lambda item: item[0], reverse=True)
    return tuple(fact for _at, fact in found[:MAX_CHANGES])
