"""Composed reads behind the signed-in pages, each in one short session of its own.

The Reflex states call these (they open no sessions themselves) and turn the plain data into view
rows. Each read takes only what its caller shows: a dashboard tab names the parts it needs, and a
change of one topic re-reads only the parts that topic touches.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable
from typing import Any

from secdash.core import notify
from secdash.core.db import session_scope
from secdash.jobs import store as jobs_store
from secdash.models import HistoryLogPublic, Site, UserPublic
from secdash.models.jobs_public import JobLogPublic
from secdash.models.public import ActivityPublic, EventPublic, SiteCheckPublic, SitePublic
from secdash.services import audit
from secdash.services.agents import activities
from secdash.services.monitoring import simulation, sites
from secdash.services.problems import events
from secdash.services.reads import dashboard, read_models, site_list
from secdash.services.scanning import scans
from secdash.services.traffic import decisions, ingest

# What the dashboard can show, and the change topics (exact, or a `prefix*`) that make each part stale.
DASHBOARD_PARTS: dict[str, tuple[str, ...]] = {
    "sites": (sites.TOPIC, "site:*"),  # the sites with their recent checks (cards and charts)
    "site_list": (sites.TOPIC, "site:*", events.TOPIC),  # every site as a list row, with open problems counted
    "site_cards": (sites.TOPIC, "site:*"),  # the cards with charts: every site in a small deployment, or the chosen one
    "site_count": (sites.TOPIC,),
    "agents": (sites.TOPIC,),  # the platform agents follow their site's status
    "activities": (activities.TOPIC,),
    "alerts": (events.TOPIC, sites.TOPIC),  # the five newest open events, the open count, real blocks
    "problems": (events.TOPIC, sites.TOPIC),  # the Problem Database under its filters (rows name their site)
    "snapshot": (simulation.TOPIC,),
    "traffic_live": (ingest.TOPIC,),  # Live Traffic from the sites' logged requests
    "user_scan": (ingest.TOPIC, decisions.DECISIONS_TOPIC),  # the clients of the last day, classified
    "decisions": (decisions.DECISIONS_TOPIC,),  # the decisions in force (for admins: None for other viewers)
    "scan": (scans.TOPIC,),
}
SCAN_LOG_LINES = 200  # log lines read per refresh (a page keeps the newest few)
DASHBOARD_TOPICS = tuple(sorted({topic for topics in DASHBOARD_PARTS.values() for topic in topics}))


def _matches(topic: str, pattern: str) -> bool:
    return topic.startswith(pattern[:-1]) if pattern.endswith(notify.PREFIX_MARK) else topic == pattern


def stale_parts(wanted: Iterable[str], changed: Iterable[str] | None) -> set[str]:
    """Of the `wanted` parts, those the `changed` topics touch (all of them when changed is None)."""
    wanted = set(wanted)
    if changed is None:
        return wanted
    changed = list(changed)
    return {
        part for part in wanted if any(_matches(topic, pattern) for topic in changed for pattern in DASHBOARD_PARTS.get(part, ()))
    }


# The shared views hold the API's JSON; the pages get the typed shapes, built once per change per worker
# (ReadModel.derived), however many dashboards are open.
def _typed_sites(rows: list[tuple[dict[str, Any], list[dict[str, Any]]]]) -> list[tuple[SitePublic, list[SiteCheckPublic]]]:
    return [
        (SitePublic.model_validate(site), [SiteCheckPublic.model_validate(check) for check in history]) for site, history in rows
    ]


async def site_cards(chosen_site: int = 0) -> list[tuple[SitePublic, list[SiteCheckPublic]]]:
    """The sites shown as cards with their charts: all of them up to site_list.CARDS_MAX_SITES (the shared view), else
    only the chosen one, read on its own (none when none is chosen): a large deployment never waits for every site's
    checks."""
    listed = await read_models.site_list_rows()
    if len(listed.rows) <= site_list.CARDS_MAX_SITES:
        return await read_models.SITES.derived("page-typed", _typed_sites)
    if not any(row.id == chosen_site for row in listed.rows):
        return []
    async with session_scope() as session:
        site = await session.get(Site, chosen_site)
        if site is None:
            return []
        checks = await dashboard.site_checks(session=session, site_id=chosen_site, limit=read_models.HISTORY_POINTS)
        return [(SitePublic.of(site), checks)]


def _typed_alerts(data: dict[str, Any]) -> dict[str, Any]:
    return {**data, "alerts": [EventPublic.model_validate(event) for event in data["alerts"]]}


async def dashboard_reads(
    parts: Iterable[str], filters: dict[str, Any] | None = None, viewer: UserPublic | None = None
) -> dict[str, Any]:
    """The named parts (see DASHBOARD_PARTS, plus "target": the size of the code a scan reads).

    The views every viewer shares (sites, alerts, activities, traffic, agents) come from the read
    models (read once per change per worker, however many dashboards are open); the filtered Problem
    Database and the scan are read for this caller. Sites, checks, events and activities come as the
    typed public shapes (models/public.py).

    `filters` are what the asking tab holds: the Problem Database's filters (events.list_events keywords), the
    Dashboard's chosen site (`chosen_site`: its card shows when there are too many sites for all of them),
    or the Security Scan's log position (`log_job`, `log_after`: its log is read after that line). `viewer` is who
    reads: the decisions are read for administrators only (decisions.shown_to).
    """
    parts = set(parts)
    reads: dict[str, Any] = {}
    if "sites" in parts:
        reads["sites"] = await read_models.SITES.derived("page-typed", _typed_sites)
    if "site_count" in parts:  # from the list's rows: counting never reads every site's checks
        reads["site_count"] = len((await read_models.site_list_rows()).rows)
    if "site_list" in parts:
        reads["site_list"] = await read_models.site_list_rows()
    if "site_cards" in parts:
        reads["site_cards"] = await site_cards(int((filters or {}).get("chosen_site") or 0))
    if "agents" in parts:
        reads["agents"] = await read_models.agent_rows()
    if "activities" in parts:
        reads["activities"] = await read_models.ACTIVITIES.derived(
            "page-typed", lambda rows: [ActivityPublic.model_validate(row) for row in rows]
        )
    if "alerts" in parts:
        reads.update(await read_models.ALERTS.derived("page-typed", _typed_alerts))  # alerts, open_alerts, threats_blocked
    if "snapshot" in parts:
        reads["snapshot"] = await read_models.traffic_snapshot()
    if "traffic_live" in parts:
        reads["traffic_live"] = await read_models.LIVE_TRAFFIC.get()
    if "user_scan" in parts:
        reads["user_scan"] = await read_models.USER_SCAN.get()
    if "problems" in parts or "scan" in parts or "decisions" in parts:
        async with session_scope() as session:
            if "decisions" in parts:
                reads["decisions"] = await decisions.shown_to(session=session, viewer=viewer)
            if "problems" in parts:
                rows = await events.list_events(session=session, **(filters or {}))
                reads["problems"] = [EventPublic.of(event, name) for event, name in rows]
            if "scan" in parts:
                reads["scan"] = scan = await scans.current_job(session=session)
                if scan is not None:  # the scan's log, read from the last line this page has (a new scan: all)
                    seen = filters or {}
                    after = seen.get("log_after", 0) if seen.get("log_job") == scan.id else 0
                    lines, _last = await notify.read_since(
                        lambda after, limit: jobs_store.logs_since(session, scan.id, after, limit),
                        after,
                        seq_of=lambda line: line.seq,
                        limit=SCAN_LOG_LINES,
                    )
                    reads["scan_log"] = (scan.id, [JobLogPublic.of(line) for line in lines])
    if "target" in parts:
        reads["target"] = await asyncio.to_thread(scans.target_summary)
    return reads


async def history_tabs(
    *,
    viewer: UserPublic,
    tabs: Iterable[str],
    search: str = "",
    limits: dict[str, int],
) -> tuple[dict[str, list[HistoryLogPublic]], dict[str, int]]:
    """Each tab's newest entries (`limits[tab]` of them; tab "all" is every category) and the counts
    the viewer may see, all matching the text filter."""
    async with session_scope() as session:
        counts = await audit.count_by_category(session=session, viewer=viewer, search=search)
        entries = {
            tab: await audit.list_logs(
                session=session, viewer=viewer, category=None if tab == "all" else tab, search=search, limit=limits[tab]
            )
            for tab in tabs
        }
    return entries, counts


async def history_page(*, viewer: UserPublic, tab: str, before: int, search: str, limit: int) -> list[HistoryLogPublic]:
    """The next page of a tab, older than the entry `before`."""
    async with session_scope() as session:
        return await audit.list_logs(
            session=session, viewer=viewer, category=None if tab == "all" else tab, before=before, search=search, limit=limit
        )
