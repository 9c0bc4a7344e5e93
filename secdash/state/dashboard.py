"""The Dashboard (/ when signed in): six tabs over sites, events, scans and the simulated signals."""

from __future__ import annotations

import asyncio
from typing import Any

import reflex as rx

from secdash.core.config import get_settings
from secdash.core.db import session_scope
from secdash.models import ScanView, as_utc, utcnow
from secdash.services import agents, events, scans, sites
from secdash.services.errors import DomainError
from secdash.state import follow
from secdash.state.auth import AuthState, refusal_events
from secdash.state.dashboard_views import (
    TOPICS,
    ActivityView,
    EventView,
    FeedView,
    SiteView,
    activity_view,
    event_view,
    feed_view,
    read_changes,
    site_view,
    time_label,
)
from secdash.state.live import wait_for_change

TABS = ("dashboard", "traffic", "users", "scan", "defense", "problems")
MAX_NOTE_LENGTH = events.MAX_NOTE_LENGTH
MAX_STALENESS_SECONDS = 5.0  # the spec's overview polling interval, as an upper bound


class DashboardState(AuthState):
    """State of the signed-in dashboard."""

    tab: str = "dashboard"
    loading: bool = True
    sites: list[SiteView] = []
    sites_count: int = 0
    threats_blocked: int = 0
    activities: list[ActivityView] = []
    alerts: list[EventView] = []
    active_alerts: int = 0  # every open (unresolved) event, not the size of the 5-row list
    # Simulated signals (None/empty when SECDASH_SIMULATION=off).
    simulation_on: bool = False
    requests_per_minute: int = 0
    active_users: int = 0
    bandwidth: float = 0.0
    capacity_percent: float = 0.0
    total_signups: int = 0
    signups_today: int = 0
    feed: list[FeedView] = []
    site_feeds: dict[str, list[FeedView]] = {}
    user_clean: int = 0
    user_suspicious: int = 0
    user_blocked: int = 0
    recent_user_scans: list[dict[str, str]] = []
    # Problem Database
    problems: list[EventView] = []
    problems_loading: bool = True
    filter_severity: str = "all"
    filter_status: str = "all"
    search: str = ""
    resolving_id: int = 0
    resolve_note: str = ""
    # Security Scan
    scan_status: str = "idle"  # idle | running | complete | stopped | failed
    scan_type: str = ""
    scan_total_lines: int = 0
    scan_total_files: int = 0
    scan_lines: int = 0
    scan_files: int = 0
    scan_current_file: str = ""
    scan_threats: int = 0
    scan_vulnerabilities: int = 0
    scan_eta: str = ""
    scan_error: str = ""
    scan_agents: int = 0
    target_lines: int = 0
    target_files: int = 0
    # The finished scan the user put away with "New scan": refreshes keep showing the idle screen.
    _dismissed_scan_id: int = 0
    # Site editing (admins)
    site_dialog_open: bool = False
    editing_site_id: int = 0
    site_form_name: str = ""
    site_form_url: str = ""
    confirm_remove: bool = False  # Remove asks first; only "Remove site" then removes
    # AI Defense Mode: the platform agents (name, status, threats blocked)
    defense_agents: list[dict[str, str]] = []

    @rx.var
    def scan_percent(self) -> int:
        """Rounded down: only a scan that read every line shows a full bar."""
        return min(100, self.scan_lines * 100 // self.scan_total_lines) if self.scan_total_lines else 0

    @rx.var
    def scan_outcome(self) -> str:
        """What a stopped scan really covered (empty otherwise)."""
        if self.scan_status != "stopped":
            return ""
        return (f"Stopped at {self.scan_percent}%: {self.scan_files} of {self.scan_total_files} files, "
                f"{self.scan_lines} of {self.scan_total_lines} lines scanned")

    # --- reading -------------------------------------------------------------------------------

    def _apply_simulation(self, snapshot: dict[str, Any] | None) -> None:
        self.simulation_on = snapshot is not None
        if snapshot is None:
            return
        self.requests_per_minute = snapshot["requests_per_minute"]
        self.active_users = snapshot["active_users"]
        self.bandwidth = snapshot["bandwidth"]
        self.capacity_percent = snapshot["capacityPercent"]
        self.total_signups = snapshot["total_signups"]
        self.signups_today = snapshot["signups_today"]
        self.feed = [feed_view(e) for e in snapshot["feed"][:3]]
        self.site_feeds = {site: [feed_view(e) for e in entries[:3]] for site, entries in snapshot["site_feeds"].items()}
        stats = snapshot["user_stats"]
        self.user_clean, self.user_suspicious, self.user_blocked = stats["clean"], stats["suspicious"], stats["blocked"]
        self.recent_user_scans = [
            {"ip": s["ip"], "site": s["site"], "verdict": s["verdict"], "time": time_label(s["timestamp"])}
            for s in snapshot["recent_scans"]
        ]

    def _problem_filters(self) -> dict[str, Any]:
        return {
            "resolved": {"open": False, "resolved": True}.get(self.filter_status),
            "severity": self.filter_severity if self.filter_severity != "all" else None,
            "search": self.search,
        }

    def _apply_problems(self, rows: list[dict[str, Any]]) -> None:
        self.problems = [event_view(row) for row in rows]
        self.problems_loading = False

    def _apply_scan(self, job: ScanView | None, target: tuple[int, int] | None = None) -> None:
        if target is not None:
            self.target_files, self.target_lines = target
        if job is None or (job.id == self._dismissed_scan_id and job.status != "running"):
            self.scan_status = "idle"
            return
        self.scan_status = job.status
        self.scan_type, self.scan_error = job.scan_type, job.error or ""
        self.scan_total_lines, self.scan_total_files = job.total_lines, job.total_files
        self.scan_lines, self.scan_files, self.scan_current_file = job.lines_scanned, job.files_scanned, job.current_file
        self.scan_threats, self.scan_vulnerabilities = job.threats_found, job.vulnerabilities
        self.scan_agents = len(scans.ENGINES[job.scan_type]) if job.status == "running" else 0
        elapsed = (utcnow() - as_utc(job.started_at)).total_seconds()
        if job.status == "running" and job.lines_scanned:
            remaining = elapsed / job.lines_scanned * (job.total_lines - job.lines_scanned)
            self.scan_eta = f"{int(remaining // 60)}m {int(remaining % 60):02d}s"
        else:
            self.scan_eta = ""

    async def _reload(self, topics: set[str] | None = None) -> None:
        """Read and apply (for handlers that already hold the state)."""
        self._apply_reads(await read_changes(topics or set(), self._problem_filters()))

    def _apply_reads(self, reads: dict[str, Any]) -> None:
        if "sites" in reads:
            self.sites = [site_view(site, history) for site, history in reads["sites"]]
            self.sites_count = len(self.sites)
            self.loading = False
        if "activities" in reads:
            self.activities = [activity_view(a) for a in reads["activities"]]
        if "alerts" in reads:
            self.alerts = [event_view(e) for e in reads["alerts"]]
            self.active_alerts = reads["open_alerts"]
            self.threats_blocked = reads["threats_blocked"]
        if "snapshot" in reads:
            self._apply_simulation(reads["snapshot"])
        if "problems" in reads:
            self._apply_problems(reads["problems"])
        if "scan" in reads:
            self._apply_scan(reads["scan"], reads.get("target"))

    def _failed(self, exc: DomainError):
        return rx.toast.error("Error", description=exc.message)

    # --- events --------------------------------------------------------------------------------

    @rx.event
    async def load(self):
        user = await self._current_user()
        if user is None:
            return self._session_ended()
        async with session_scope() as session:
            await sites.init_default_sites(session=session, settings=get_settings(), actor=user)
        self._apply_reads(await read_changes(set(), self._problem_filters(), with_target=True))
        self.defense_agents = await _read_agents()
        return DashboardState.follow_changes

    @rx.event
    async def stop_following(self):
        """The dashboard left the screen: end its follow loop."""
        if await self._current_user() is None:
            return self._session_ended()
        follow.stop_following(self.router.session.client_token, "dashboard")
        return None

    @rx.event(background=True)
    async def follow_changes(self):
        """Re-read what changed when producers announce it (or at least every few seconds)."""
        if await self._current_user() is None:
            yield refusal_events()
            return
        client_token = self.router.session.client_token
        async with follow.follow(client_token, "dashboard", *TOPICS) as changes:
            while follow.following(changes, client_token):
                changed = await wait_for_change(changes, MAX_STALENESS_SECONDS)
                if not follow.following(changes, client_token):
                    return
                if await self._current_user(touch=False) is None:
                    yield refusal_events()
                    return
                reads = await read_changes(changed, self._problem_filters())  # outside the state lock
                agent_rows = await _read_agents() if not changed or sites.TOPIC in changed else None
                async with self:
                    self._apply_reads(reads)
                    if agent_rows is not None:
                        self.defense_agents = agent_rows

    @rx.event
    async def set_tab(self, tab: str):
        if await self._current_user() is None:
            return self._session_ended()
        if tab in TABS:
            self.tab = tab
        return None

    @rx.event
    async def start_scan(self, scan_type: str):
        user = await self._current_user()
        if user is None:
            return self._session_ended()
        try:
            async with session_scope() as session:
                job = await scans.start_scan(session=session, actor=user, scan_type=scan_type)
        except DomainError as exc:
            return self._failed(exc)
        self._apply_scan(job)
        return None

    @rx.event
    async def stop_scan(self):
        user = await self._current_user()
        if user is None:
            return self._session_ended()
        try:
            async with session_scope() as session:
                await scans.stop_scan(session=session, actor=user)
        except DomainError as exc:
            return self._failed(exc)
        return None

    @rx.event
    async def new_scan(self):
        """Back to the idle screen after a finished scan."""
        if await self._current_user() is None:
            return self._session_ended()
        if self.scan_status != "running":
            async with session_scope() as session:
                job = await scans.current_job(session=session)
            self._dismissed_scan_id = job.id if job and job.id else 0
            self.scan_status = "idle"
            self.target_files, self.target_lines = await asyncio.to_thread(scans.target_summary)
        return None

    @rx.event
    async def set_filter_severity(self, value: str):
        if await self._current_user() is None:
            return self._session_ended()
        if value in ("all", "high", "medium", "low"):
            self.filter_severity = value
            await self._reload({events.TOPIC})
        return None

    @rx.event
    async def set_filter_status(self, value: str):
        if await self._current_user() is None:
            return self._session_ended()
        if value in ("all", "open", "resolved"):
            self.filter_status = value
            await self._reload({events.TOPIC})
        return None

    @rx.event
    async def set_search(self, value: str):
        if await self._current_user() is None:
            return self._session_ended()
        self.search = str(value)[:200]
        await self._reload({events.TOPIC})
        return None

    @rx.event
    async def open_resolve(self, event_id: int):
        if await self._current_user() is None:
            return self._session_ended()
        self.resolving_id, self.resolve_note = int(event_id), ""
        return None

    @rx.event
    async def set_resolve_note(self, value: str):
        if await self._current_user() is None:
            return self._session_ended()
        self.resolve_note = str(value)[: events.MAX_NOTE_LENGTH * 5]  # kept whole; "Mark resolved" says if too long
        return None

    @rx.event
    async def cancel_resolve(self):
        if await self._current_user() is None:
            return self._session_ended()
        self.resolving_id = 0
        return None

    @rx.event
    async def confirm_resolve(self):
        user = await self._current_user()
        if user is None:
            return self._session_ended()
        try:
            async with session_scope() as session:
                await events.resolve_event(session=session, actor=user, event_id=self.resolving_id, note=self.resolve_note)
        except DomainError as exc:
            return self._failed(exc)
        self.resolving_id = 0
        await self._reload({events.TOPIC})
        return rx.toast.success("Event resolved")

    @rx.event
    async def open_site_dialog(self, site_id: int):
        """Open the add (site_id 0) or edit form."""
        if await self._current_user() is None:
            return self._session_ended()
        site = next((s for s in self.sites if s.id == int(site_id)), None)
        self.editing_site_id = site.id if site else 0
        self.site_form_name = site.name if site else ""
        self.site_form_url = site.url if site else "https://"
        self.site_dialog_open, self.confirm_remove = True, False
        return None

    @rx.event
    async def close_site_dialog(self):
        if await self._current_user() is None:
            return self._session_ended()
        self.site_dialog_open, self.confirm_remove = False, False
        return None

    @rx.event
    async def ask_remove_site(self):
        """Remove was pressed: the dialog asks before anything is removed."""
        if await self._current_user() is None:
            return self._session_ended()
        self.confirm_remove = self.editing_site_id > 0
        return None

    @rx.event
    async def keep_site(self):
        if await self._current_user() is None:
            return self._session_ended()
        self.confirm_remove = False
        return None

    @rx.event
    async def save_site(self, form: dict):
        user = await self._current_user()
        if user is None:
            return self._session_ended()
        name, url = str(form.get("name", "")), str(form.get("url", ""))
        allow_private = bool(form.get("allow_private"))
        try:
            async with session_scope() as session:
                if self.editing_site_id:
                    await sites.update_site(session=session, actor=user, site_id=self.editing_site_id, name=name, url=url,
                                            allow_private=allow_private)
                else:
                    await sites.create_site(session=session, actor=user, name=name, url=url, allow_private=allow_private)
        except DomainError as exc:
            self.site_form_name, self.site_form_url = name, url  # keep what was typed
            return self._failed(exc)
        self.site_dialog_open = False
        await self._reload({sites.TOPIC})
        return rx.toast.success("Site saved", description="It is probed on the next monitoring round.")

    @rx.event
    async def delete_site(self, site_id: int):
        user = await self._current_user()
        if user is None:
            return self._session_ended()
        if not self.confirm_remove:  # only the confirmation's button removes
            return None
        try:
            async with session_scope() as session:
                await sites.delete_site(session=session, actor=user, site_id=int(site_id))
        except DomainError as exc:
            self.confirm_remove = False
            return self._failed(exc)
        self.site_dialog_open, self.confirm_remove = False, False
        await self._reload({sites.TOPIC})
        return rx.toast.success("Site removed")


async def _read_agents() -> list[dict[str, str]]:
    """The platform agents as the AI Defense Mode tab lists them."""
    async with session_scope() as session:
        records = await agents.list_agents(session=session)
    return [{"id": r.id, "name": r.agent_name, "status": r.status, "blocked": str(r.threats_blocked)} for r in records]
