"""The Dashboard (/ when signed in): a small parent state and one substate per tab.

`DashboardState` holds what every tab shares (which tab is open, the first load, the one follow
loop). Each tab's substate holds only that tab's data and names the parts it reads
(`TAB_PARTS`, see services/page_reads.py); opening a tab reads its parts, and a change re-reads only
the parts of the open tab that the change touches, so a traffic tick costs nothing while the
Problem Database is open.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import timedelta
from typing import Any

import reflex as rx

from secdash.core import notify
from secdash.core.config import get_settings
from secdash.models import ScanView, UserPublic, as_utc, utcnow
from secdash.models.jobs_public import JobLogPublic
from secdash.services import events, page_reads, scans, sites
from secdash.services.errors import DomainError
from secdash.services.scoped import in_session
from secdash.state import follow
from secdash.state.auth import AuthState
from secdash.state.base import protected
from secdash.state.browser_actions import toast
from secdash.state.dashboard_views import (
    ActivityView,
    EventView,
    FeedView,
    SiteView,
    activity_view,
    event_view,
    feed_view,
    site_view,
    snapshot_time_label,
)
from secdash.state.job_log_view import LogLine, job_log_step

TABS = ("dashboard", "traffic", "users", "scan", "defense", "problems")
# What each tab shows (parts of services.page_reads.DASHBOARD_PARTS).
TAB_PARTS: dict[str, frozenset[str]] = {
    "dashboard": frozenset({"sites", "activities", "alerts", "snapshot"}),
    "traffic": frozenset({"snapshot"}),
    "users": frozenset({"snapshot"}),
    "scan": frozenset({"scan"}),
    "defense": frozenset({"site_count", "agents", "activities"}),
    "problems": frozenset({"problems"}),
}
MAX_NOTE_LENGTH = events.MAX_NOTE_LENGTH
MAX_STALENESS_SECONDS = 5.0  # the spec's overview polling interval, as an upper bound


def parts_to_read(tab: str, changed: Mapping[str, Any] | None) -> set[str]:
    """The parts of `tab` that `changed` (topic -> sequence) makes stale; all of them when changed is
    None or empty (the first read, or the staleness bound passed with no change)."""
    return page_reads.stale_parts(TAB_PARTS[tab], changed or None)


class DashboardState(AuthState):
    """The dashboard's shared bits: the open tab, the first load and the follow loop."""

    tab: str = "dashboard"
    loading: bool = True

    def _read_filters(self) -> dict[str, Any] | None:
        """The filters a tab's reads take (the Problem Database's; none for the other tabs)."""
        return None

    def _apply_reads(self, reads: dict[str, Any]) -> None:
        """Each tab substate applies what `page_reads.dashboard_reads` returned for its parts."""
        raise NotImplementedError

    async def _tab_state(self, tab: str) -> Any:
        return await self.get_state(TAB_STATES[tab])

    async def _read_tab(self, tab: str, changed: Mapping[str, Any] | None = None, *, with_target: bool = False) -> None:
        """Read and apply the open tab's stale parts (for handlers that hold the state)."""
        state = await self._tab_state(tab)
        parts = parts_to_read(tab, changed)
        if with_target and tab == "scan" and not state.target_files:  # the code's size, read once per tab
            parts.add("target")
        if parts:
            state._apply_reads(await page_reads.dashboard_reads(parts, state._read_filters()))

    @protected
    async def load(self, user: UserPublic):
        """The dashboard appeared: create the default sites on the very first load, read the open tab."""
        await in_session(sites.init_default_sites, settings=get_settings(), actor=user)
        await self._read_tab(self.tab, with_target=True)
        self.loading = False
        return DashboardState.follow_changes

    @protected(reads_only=True)
    async def set_tab(self, tab: str):
        """Show another tab, read fresh."""
        if tab in TABS:
            self.tab = tab
            await self._read_tab(tab, with_target=True)
        return None

    @protected(reads_only=True)
    async def stop_following(self):
        """The dashboard left the screen: end its follow loop."""
        follow.stop_following(self.router.session.client_token, "dashboard")
        return None

    @protected(reads_only=True, background=True)
    async def follow_changes(self):
        """Re-read the open tab's parts a change touches (and all of them at least every few seconds)."""
        async for out in follow.signed_in_rounds(
            self, "dashboard", *page_reads.DASHBOARD_TOPICS, timeout=MAX_STALENESS_SECONDS, each_round=self._follow_round
        ):
            yield out

    async def _follow_round(self, _user: UserPublic, changed: notify.Changed) -> None:
        async with self:
            tab = self.tab
            state = await self._tab_state(tab)
            parts, filters = parts_to_read(tab, changed), state._read_filters()
        if not parts:
            return
        reads = await page_reads.dashboard_reads(parts, filters)  # outside the state lock
        async with self:
            if self.tab == tab:  # the user did not switch meanwhile (the new tab read itself)
                (await self._tab_state(tab))._apply_reads(reads)


def _failed(exc: DomainError) -> rx.event.EventSpec:
    return toast.error("Error", description=exc.message)


class OverviewTab(DashboardState):
    """The Dashboard tab: figures, sites, AI activity, alerts; and the site add/edit dialog (admins)."""

    sites: list[SiteView] = []
    sites_count: int = 0
    threats_blocked: int = 0
    activities: list[ActivityView] = []
    alerts: list[EventView] = []
    active_alerts: int = 0  # every open (unresolved) event, not the size of the 5-row list
    simulation_on: bool = False
    requests_per_minute: int = 0
    active_users: int = 0
    bandwidth: float = 0.0
    user_clean: int = 0
    user_suspicious: int = 0
    user_blocked: int = 0
    # Site editing (admins)
    site_dialog_open: bool = False
    editing_site_id: int = 0
    site_form_name: str = ""
    site_form_url: str = ""
    confirm_remove: bool = False  # Remove asks first; only "Remove site" then removes

    def _apply_reads(self, reads: dict[str, Any]) -> None:
        if "sites" in reads:
            self.sites = [site_view(site, history) for site, history in reads["sites"]]
            self.sites_count = len(self.sites)
        if "activities" in reads:
            self.activities = [activity_view(a) for a in reads["activities"]]
        if "alerts" in reads:
            self.alerts = [event_view(e) for e in reads["alerts"]]
            self.active_alerts = reads["open_alerts"]
            self.threats_blocked = reads["threats_blocked"]
        if "snapshot" in reads:
            snapshot = reads["snapshot"]
            self.simulation_on = snapshot is not None
            if snapshot is not None:
                self.requests_per_minute = snapshot["requests_per_minute"]
                self.active_users = snapshot["active_users"]
                self.bandwidth = snapshot["bandwidth"]
                stats = snapshot["user_stats"]
                self.user_clean, self.user_suspicious, self.user_blocked = (stats["clean"], stats["suspicious"], stats["blocked"])

    async def _reload_sites(self) -> None:
        self._apply_reads(await page_reads.dashboard_reads({"sites"}))

    @protected(reads_only=True)
    async def open_site_dialog(self, site_id: int):
        """Open the add (site_id 0) or edit form."""
        site = next((s for s in self.sites if s.id == int(site_id)), None)
        self.editing_site_id = site.id if site else 0
        self.site_form_name = site.name if site else ""
        self.site_form_url = site.url if site else "https://"
        self.site_dialog_open, self.confirm_remove = True, False
        return None

    @protected(reads_only=True)
    async def close_site_dialog(self):
        self.site_dialog_open, self.confirm_remove = False, False
        return None

    @protected(reads_only=True)
    async def ask_remove_site(self):
        """Remove was pressed: the dialog asks before anything is removed."""
        self.confirm_remove = self.editing_site_id > 0
        return None

    @protected(reads_only=True)
    async def keep_site(self):
        self.confirm_remove = False
        return None

    @protected
    async def save_site(self, user: UserPublic, form: dict):
        name, url = str(form.get("name", "")), str(form.get("url", ""))
        allow_private = bool(form.get("allow_private"))
        try:
            if self.editing_site_id:
                await in_session(
                    sites.update_site, actor=user, site_id=self.editing_site_id, name=name, url=url, allow_private=allow_private
                )
            else:
                await in_session(sites.create_site, actor=user, name=name, url=url, allow_private=allow_private)
        except DomainError as exc:
            self.site_form_name, self.site_form_url = name, url  # keep what was typed
            return _failed(exc)
        self.site_dialog_open = False
        await self._reload_sites()
        return toast.success("Site saved", description="It is being probed now; its figures show in a moment.")

    @protected
    async def delete_site(self, user: UserPublic, site_id: int):
        if not self.confirm_remove:  # only the confirmation's button removes
            return None
        try:
            await in_session(sites.delete_site, actor=user, site_id=int(site_id))
        except DomainError as exc:
            self.confirm_remove = False
            return _failed(exc)
        self.site_dialog_open, self.confirm_remove = False, False
        await self._reload_sites()
        return toast.success("Site removed")


class TrafficTab(DashboardState):
    """Live Traffic: the simulated request figures and feeds (None/empty when SECDASH_SIMULATION=off)."""

    simulation_on: bool = False
    requests_per_minute: int = 0
    active_users: int = 0
    bandwidth: float = 0.0
    capacity_percent: float = 0.0
    total_signups: int = 0
    signups_today: int = 0
    feed: list[FeedView] = []
    site_feeds: dict[str, list[FeedView]] = {}

    def _apply_reads(self, reads: dict[str, Any]) -> None:
        if "snapshot" not in reads:
            return
        snapshot = reads["snapshot"]
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


class UserScanTab(DashboardState):
    """User Scan: the simulated verdicts on signing-up users."""

    user_clean: int = 0
    user_suspicious: int = 0
    user_blocked: int = 0
    recent_user_scans: list[dict[str, str]] = []

    def _apply_reads(self, reads: dict[str, Any]) -> None:
        snapshot = reads.get("snapshot")
        if snapshot is None:
            return
        stats = snapshot["user_stats"]
        self.user_clean, self.user_suspicious, self.user_blocked = stats["clean"], stats["suspicious"], stats["blocked"]
        self.recent_user_scans = [
            {"ip": s["ip"], "site": s["site"], "verdict": s["verdict"], "time": snapshot_time_label(s["timestamp"])}
            for s in snapshot["recent_scans"]
        ]


SCAN_LOG_KEPT = 12  # log lines a tab shows


ScanLogLine = LogLine  # the scan's log, as every job log


class ScanTab(DashboardState):
    """Security Scan: start, follow and stop a code scan."""

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
    # The scan's log as the job writes it: read from the last line this tab has, the newest kept.
    scan_log: list[ScanLogLine] = []
    _log_job: int = 0
    _log_seq: int = 0
    # The finished scan the user put away with "New scan": refreshes keep showing the idle screen.
    _dismissed_scan_id: int = 0

    def _read_filters(self) -> dict[str, Any] | None:
        return {"log_job": self._log_job, "log_after": self._log_seq}

    @rx.var
    def scan_percent(self) -> int:
        """Rounded down: only a scan that read every line shows a full bar."""
        return min(100, self.scan_lines * 100 // self.scan_total_lines) if self.scan_total_lines else 0

    @rx.var
    def scan_outcome(self) -> str:
        """What a stopped scan really covered (empty otherwise)."""
        if self.scan_status != "stopped":
            return ""
        return (
            f"Stopped at {self.scan_percent}%: {self.scan_files} of {self.scan_total_files} files, "
            f"{self.scan_lines} of {self.scan_total_lines} lines scanned"
        )

    def _apply_reads(self, reads: dict[str, Any]) -> None:
        if "target" in reads:
            self.target_files, self.target_lines = reads["target"]
        if "scan" in reads:
            self._apply_scan(reads["scan"])
        if "scan_log" in reads:
            self._apply_log(*reads["scan_log"])

    def _apply_log(self, job_id: int, lines: list[JobLogPublic]) -> None:
        # another scan: its log from the start
        self._log_job, self._log_seq, log = job_log_step(
            self._log_job, self._log_seq, self.scan_log, job_id, lines, kept=SCAN_LOG_KEPT
        )
        if log is not None:
            self.scan_log = log

    def _apply_scan(self, job: ScanView | None) -> None:
        if job is None or (job.id == self._dismissed_scan_id and job.status != "running"):
            self.scan_status = "idle"
            return
        self.scan_status = job.status
        self.scan_type, self.scan_error = job.scan_type, job.error or ""
        self.scan_total_lines, self.scan_total_files = job.total_lines, job.total_files
        self.scan_lines, self.scan_files, self.scan_current_file = job.lines_scanned, job.files_scanned, job.current_file
        self.scan_threats, self.scan_vulnerabilities = job.threats_found, job.vulnerabilities
        self.scan_agents = scans.agents_scanning(job)
        elapsed = (utcnow() - as_utc(job.started_at)).total_seconds()
        if job.status == "running" and job.lines_scanned:
            remaining = elapsed / job.lines_scanned * (job.total_lines - job.lines_scanned)
            self.scan_eta = f"{int(remaining // 60)}m {int(remaining % 60):02d}s"
        else:
            self.scan_eta = ""

    @protected
    async def start_scan(self, user: UserPublic, scan_type: str):
        try:
            job = await in_session(scans.start_scan, actor=user, scan_type=scan_type)
        except DomainError as exc:
            return _failed(exc)
        self._apply_scan(job)
        return None

    @protected
    async def stop_scan(self, user: UserPublic):
        try:
            await in_session(scans.stop_scan, actor=user)
        except DomainError as exc:
            return _failed(exc)
        return None

    @protected(reads_only=True)
    async def new_scan(self):
        """Back to the idle screen after a finished scan."""
        if self.scan_status != "running":
            reads = await page_reads.dashboard_reads({"scan", "target"})
            job = reads["scan"]
            self._dismissed_scan_id = job.id if job and job.id else 0
            self._apply_reads(reads)
        return None


class DefenseTab(DashboardState):
    """AI Defense Mode: the platform agents with their status, and the defense activity."""

    sites_count: int = 0
    defense_agents: list[dict[str, str]] = []
    activities: list[ActivityView] = []

    def _apply_reads(self, reads: dict[str, Any]) -> None:
        if "site_count" in reads:
            self.sites_count = reads["site_count"]
        if "agents" in reads:
            self.defense_agents = [dict(row) for row in reads["agents"]]  # the read model's rows are shared
        if "activities" in reads:
            self.activities = [activity_view(a) for a in reads["activities"]]


class ProblemsTab(DashboardState):
    """Problem Database: every security event, filtered; admins resolve them with a note."""

    problems: list[EventView] = []
    problems_loading: bool = True
    filter_severity: str = "all"
    filter_status: str = "all"
    search: str = ""
    include_drills: bool = False  # the default view: problems to act on (drill records belong to Battle Station)
    resolving_id: int = 0
    resolve_note: str = ""
    resolve_disposition: str = "fixed"
    resolve_until_days: str = ""

    def _read_filters(self) -> dict[str, Any]:
        return {
            "status": self.filter_status if self.filter_status != "all" else None,
            "severity": self.filter_severity if self.filter_severity != "all" else None,
            "search": self.search,
            "include_drills": self.include_drills,
        }

    def _apply_reads(self, reads: dict[str, Any]) -> None:
        if "problems" in reads:
            self.problems = [event_view(row) for row in reads["problems"]]
            self.problems_loading = False

    async def _reload(self) -> None:
        self._apply_reads(await page_reads.dashboard_reads({"problems"}, self._read_filters()))

    @protected(reads_only=True)
    async def set_filter_severity(self, value: str):
        if value in ("all", "high", "medium", "low"):
            self.filter_severity = value
            await self._reload()
        return None

    @protected(reads_only=True)
    async def set_filter_status(self, value: str):
        if value in ("all", *events.STATUSES):
            self.filter_status = value
            await self._reload()
        return None

    @protected(reads_only=True)
    async def set_include_drills(self, value: bool):
        self.include_drills = value is True
        await self._reload()
        return None

    @protected(reads_only=True)
    async def set_search(self, value: str):
        self.search = str(value)[:200]
        await self._reload()
        return None

    @protected(reads_only=True)
    async def open_resolve(self, event_id: int):
        self.resolving_id, self.resolve_note = int(event_id), ""
        self.resolve_disposition, self.resolve_until_days = "fixed", ""
        return None

    @protected(reads_only=True)
    async def set_resolve_disposition(self, value: str):
        self.resolve_disposition = str(value)[:32]  # the service refuses anything else, with the reason
        return None

    @protected(reads_only=True)
    async def set_resolve_until_days(self, value: str):
        self.resolve_until_days = str(value) if str(value) in ("", "30", "90", "365") else ""
        return None

    @protected(reads_only=True)
    async def set_resolve_note(self, value: str):
        self.resolve_note = str(value)[: events.MAX_NOTE_LENGTH * 5]  # kept whole; "Mark resolved" says if too long
        return None

    @protected(reads_only=True)
    async def cancel_resolve(self):
        self.resolving_id = 0
        return None

    @protected
    async def confirm_resolve(self, user: UserPublic):
        try:
            until = utcnow() + timedelta(days=int(self.resolve_until_days)) if self.resolve_until_days else None
            await in_session(
                events.resolve_event,
                actor=user,
                event_id=self.resolving_id,
                note=self.resolve_note,
                disposition=self.resolve_disposition,
                accepted_until=until if self.resolve_disposition == "accepted_risk" else None,
            )
        except DomainError as exc:
            return _failed(exc)
        self.resolving_id = 0
        await self._reload()
        return toast.success("Event resolved")


TAB_STATES: dict[str, type[DashboardState]] = {
    "dashboard": OverviewTab,
    "traffic": TrafficTab,
    "users": UserScanTab,
    "scan": ScanTab,
    "defense": DefenseTab,
    "problems": ProblemsTab,
}
