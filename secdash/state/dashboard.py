"""The Dashboard (/ when signed in): a small parent state and one substate per tab.

`DashboardState` holds what every tab shares (which tab is open, the first load, the one follow
loop). Each tab's substate holds only that tab's data and names the parts it reads
(`TAB_PARTS`, see services/reads/page_reads.py); opening a tab reads its parts, and a change re-reads only
the parts of the open tab that the change touches, so a traffic tick costs nothing while the
Problem Database is open.

The parent state is in dashboard_base.py, the Security Scan and Problem Database tabs in dashboard_scan.py and
dashboard_problems.py; this module defines the other tabs and `TAB_STATES`, and is where the dashboard's states
are imported from.
"""

from __future__ import annotations

from typing import Any

from secdash.models import UserPublic, utcnow
from secdash.services.errors import DomainError
from secdash.services.problems import events
from secdash.services.reads import page_reads
from secdash.services.scoped import in_session
from secdash.services.traffic import decisions
from secdash.state.base import protected
from secdash.state.browser_actions import toast
from secdash.state.dashboard_base import (
    MAX_STALENESS_SECONDS,
    TAB_PARTS,
    TABS,
    DashboardState,
    failed_toast,
    parts_to_read,
)
from secdash.state.dashboard_overview import OverviewTab
from secdash.state.dashboard_problems import ProblemsTab
from secdash.state.dashboard_scan import SCAN_LOG_KEPT, ScanLogLine, ScanTab
from secdash.state.dashboard_views import (
    ActivityView,
    FeedView,
    activity_view,
    feed_view,
)
from secdash.state.traffic_views import (
    DECISION_DURATIONS,
    ClientView,
    DecisionView,
    MixView,
    RequestView,
    SiteTrafficView,
    capacity_text,
    client_view,
    decision_view,
    rate_text,
    request_view,
    site_traffic_view,
    status_mix,
)

__all__ = [
    "MAX_NOTE_LENGTH",
    "MAX_STALENESS_SECONDS",
    "SCAN_LOG_KEPT",
    "TAB_PARTS",
    "TAB_STATES",
    "TABS",
    "DashboardState",
    "DefenseTab",
    "OverviewTab",
    "ProblemsTab",
    "ScanLogLine",
    "ScanTab",
    "TrafficTab",
    "UserScanTab",
    "parts_to_read",
]

MAX_NOTE_LENGTH = events.MAX_NOTE_LENGTH
FEED_ROWS = 10  # the newest requests Live Traffic lists


class TrafficTab(DashboardState):
    """Live Traffic: the sites' logged requests (services/traffic/live.py); below them, when SECDASH_SIMULATION is
    on, the simulated figures, labelled."""

    requests_per_minute: int = 0
    capacity: str = ""  # the sites with a capacity set, against it ("" when none has one)
    active_clients: int = 0
    bandwidth: str = "0 B/s"
    signups_today: int = 0
    blocked_last_hour: int = 0
    requests_last_hour: int = 0
    mix: list[MixView] = []
    top_paths: list[dict[str, str]] = []
    feed: list[RequestView] = []
    sites_traffic: list[SiteTrafficView] = []
    simulation_on: bool = False
    sim_requests_per_minute: int = 0
    sim_active_users: int = 0
    sim_bandwidth: float = 0.0
    sim_capacity_percent: float = 0.0
    sim_total_signups: int = 0
    sim_signups_today: int = 0
    sim_feed: list[FeedView] = []

    def _apply_reads(self, reads: dict[str, Any]) -> None:
        live = reads.get("traffic_live")
        if live is not None:
            self.requests_per_minute = live["requestsPerMinute"]
            self.capacity = capacity_text(live.get("capacityPercent"))
            self.active_clients = live["activeClients"]
            self.bandwidth = rate_text(live["bytesPerSecond"])
            self.signups_today = live["signupsToday"]
            self.blocked_last_hour = live["lastHour"]["blocked"]
            self.requests_last_hour = live["lastHour"]["requests"]
            self.mix = status_mix(live["lastHour"])
            self.top_paths = [{"path": row["path"], "requests": str(row["requests"])} for row in live["topPaths"]]
            self.feed = [request_view(entry) for entry in live["feed"][:FEED_ROWS]]
            self.sites_traffic = [site_traffic_view(site) for site in live["sites"]]
        if "snapshot" not in reads:
            return
        snapshot = reads["snapshot"]
        self.simulation_on = snapshot is not None
        if snapshot is None:
            return
        self.sim_requests_per_minute = snapshot["requests_per_minute"]
        self.sim_active_users = snapshot["active_users"]
        self.sim_bandwidth = snapshot["bandwidth"]
        self.sim_capacity_percent = snapshot["capacityPercent"]
        self.sim_total_signups = snapshot["total_signups"]
        self.sim_signups_today = snapshot["signups_today"]
        self.sim_feed = [feed_view(e) for e in snapshot["feed"][:3]]


class UserScanTab(DashboardState):
    """User Scan: the clients the sites logged in the last day, classified from detections and decisions; for
    administrators the decisions in force, which they add and lift; the simulated verdicts below them when the
    simulation is on."""

    user_clean: int = 0
    user_suspicious: int = 0
    user_blocked: int = 0
    recent_clients: list[ClientView] = []
    simulation_on: bool = False
    sim_clean: int = 0
    sim_suspicious: int = 0
    sim_blocked: int = 0
    shows_decisions: bool = False  # the server read them for this viewer (administrators)
    decisions: list[DecisionView] = []
    decision_value: str = ""
    decision_type: str = "ban"
    decision_duration: str = "14400"
    decision_reason: str = ""
    deciding: bool = False

    @protected(reads_only=True)
    async def set_decision_value(self, value: str):
        self.decision_value = str(value)[:100]  # the service says what is wrong with it
        return None

    @protected(reads_only=True)
    async def set_decision_type(self, value: str):
        if value in ("ban", "throttle"):
            self.decision_type = value
        return None

    @protected(reads_only=True)
    async def set_decision_duration(self, value: str):
        if value in DECISION_DURATIONS:
            self.decision_duration = value
        return None

    @protected(reads_only=True)
    async def set_decision_reason(self, value: str):
        self.decision_reason = str(value)[:300]
        return None

    async def _reread(self, user: UserPublic) -> None:
        self._apply_reads(await page_reads.dashboard_reads({"decisions", "user_scan"}, viewer=user))

    @protected
    async def add_decision(self, user: UserPublic):
        """Ban or throttle an address or range (administrators: the service refuses anyone else)."""
        if self.deciding:
            return None
        self.deciding = True
        try:
            decision = await in_session(
                decisions.add_decision,
                actor=user,
                value=self.decision_value,
                type_=self.decision_type,
                seconds=int(self.decision_duration),
                reason=self.decision_reason,
            )
        except DomainError as exc:
            return failed_toast(exc)
        finally:
            self.deciding = False
        self.decision_value = self.decision_reason = ""
        await self._reread(user)
        label = DECISION_DURATIONS.get(self.decision_duration, "")
        return toast.success("Decision added", description=f"{decision.type.value} of {decision.value} for {label}")

    @protected
    async def lift_decision(self, user: UserPublic, decision_id: int):
        """Lift a decision now (administrators); bouncers hear of it on their next pull."""
        try:
            wanted = int(decision_id)
        except (TypeError, ValueError):
            return toast.error("Error", description="decision id must be a whole number")
        try:
            decision = await in_session(decisions.remove_decision, actor=user, decision_id=wanted)
        except DomainError as exc:
            return failed_toast(exc)
        await self._reread(user)
        return toast.success("Decision lifted", description=f"{decision.value}: its {decision.type.value} ends now")

    def _apply_reads(self, reads: dict[str, Any]) -> None:
        if "decisions" in reads:
            rows = reads["decisions"]
            self.shows_decisions = rows is not None
            now = utcnow()
            self.decisions = [decision_view(row, now) for row in rows or []]
        scanned = reads.get("user_scan")
        if scanned is not None:
            counts = scanned["counts"]
            self.user_clean, self.user_suspicious, self.user_blocked = counts["clean"], counts["suspicious"], counts["blocked"]
            self.recent_clients = [client_view(row) for row in scanned["recent"]]
        if "snapshot" not in reads:
            return
        snapshot = reads["snapshot"]
        self.simulation_on = snapshot is not None
        if snapshot is not None:
            stats = snapshot["user_stats"]
            self.sim_clean, self.sim_suspicious, self.sim_blocked = stats["clean"], stats["suspicious"], stats["blocked"]


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


TAB_STATES: dict[str, type[DashboardState]] = {
    "dashboard": OverviewTab,
    "traffic": TrafficTab,
    "users": UserScanTab,
    "scan": ScanTab,
    "defense": DefenseTab,
    "problems": ProblemsTab,
}
