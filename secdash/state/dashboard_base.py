"""The Dashboard's parent state (/ when signed in): what every tab shares (which tab is open, the first load,
the one follow loop) and which parts each tab reads (`TAB_PARTS`, see services/reads/page_reads.py). The tabs are its
substates: state/dashboard.py (and dashboard_scan.py, dashboard_problems.py) define them and `TAB_STATES`.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any, ClassVar

import reflex as rx

from secdash.core import notify
from secdash.models import UserPublic
from secdash.services.errors import DomainError
from secdash.services.reads import page_reads
from secdash.state import follow
from secdash.state.auth import AuthState
from secdash.state.base import protected
from secdash.state.browser_actions import toast
from secdash.state.followed_page import FollowedPage

PAGE = "dashboard"  # the follow loop's key
TABS = ("dashboard", "traffic", "users", "scan", "defense", "problems")
# What each tab shows (parts of services.page_reads.DASHBOARD_PARTS).
TAB_PARTS: dict[str, frozenset[str]] = {
    "dashboard": frozenset({"site_list", "site_cards", "activities", "alerts", "traffic_live", "user_scan"}),
    "traffic": frozenset({"traffic_live", "snapshot"}),
    "users": frozenset({"user_scan", "decisions", "snapshot"}),
    "scan": frozenset({"scan"}),
    "defense": frozenset({"site_count", "agents", "activities"}),
    "problems": frozenset({"problems"}),
}
MAX_STALENESS_SECONDS = 5.0  # the spec's overview polling interval, as an upper bound
# Parts whose figures slide with the clock (the last minute's requests) and whose source, every request a site
# logs, does not announce each change: re-read this often while their tab is open, whatever else changes.
TIMED_PARTS = frozenset({"traffic_live", "user_scan"})
TIMED_SECONDS = 3.0


def parts_to_read(tab: str, changed: Mapping[str, Any] | None) -> set[str]:
    """The parts of `tab` that `changed` (topic -> sequence) makes stale; all of them when changed is
    None or empty (the first read, or the staleness bound passed with no change)."""
    return page_reads.stale_parts(TAB_PARTS[tab], changed or None)


class DashboardState(FollowedPage, AuthState):
    """The dashboard's shared bits: the open tab, the first load and the follow loop."""

    _follow_page: ClassVar[str] = PAGE

    tab: str = "dashboard"
    loading: bool = True
    _timed_read_at: float = 0.0  # when the open tab's timed parts were last read (monotonic)

    def _read_filters(self) -> dict[str, Any] | None:
        """The filters a tab's reads take (the Problem Database's; none for the other tabs)."""
        return None

    def _apply_reads(self, reads: dict[str, Any]) -> None:
        """Each tab substate applies what `page_reads.dashboard_reads` returned for its parts."""
        raise NotImplementedError

    async def _tab_state(self, tab: str) -> Any:
        from secdash.state.dashboard import TAB_STATES  # the tabs subclass this state: looked up late

        return await self.get_state(TAB_STATES[tab])

    async def _read_tab(
        self, tab: str, user: UserPublic, changed: Mapping[str, Any] | None = None, *, with_target: bool = False
    ) -> None:
        """Read and apply the open tab's stale parts (for handlers that hold the state)."""
        state = await self._tab_state(tab)
        parts = parts_to_read(tab, changed)
        if with_target and tab == "scan" and not state.target_files:  # the code's size, read once per tab
            parts.add("target")
        if parts:
            state._apply_reads(await page_reads.dashboard_reads(parts, state._read_filters(), viewer=user))

    @protected
    async def load(self, user: UserPublic):
        """The dashboard appeared: read the open tab (the demo sites are created at server start-up)."""
        await self._read_tab(self.tab, user, with_target=True)
        self.loading = False
        return DashboardState.follow_changes

    @protected(reads_only=True)
    async def set_tab(self, user: UserPublic, tab: str):
        """Show another tab, read fresh."""
        if tab in TABS:
            self.tab = tab
            await self._read_tab(tab, user, with_target=True)
        return None

    @protected(reads_only=True, background=True)
    async def follow_changes(self):
        """Re-read the open tab's parts a change touches (and all of them at least every few seconds)."""
        async for out in follow.signed_in_rounds(
            self, PAGE, *page_reads.DASHBOARD_TOPICS, timeout=MAX_STALENESS_SECONDS, each_round=self._follow_round
        ):
            yield out

    async def _follow_round(self, user: UserPublic, changed: notify.Changed) -> None:
        async with self:
            tab = self.tab
            state = await self._tab_state(tab)
            parts, filters = parts_to_read(tab, changed), state._read_filters()
            if time.monotonic() - self._timed_read_at >= TIMED_SECONDS:
                parts |= TAB_PARTS[tab] & TIMED_PARTS
            if parts & TIMED_PARTS:
                self._timed_read_at = time.monotonic()
        if not parts:
            return
        reads = await page_reads.dashboard_reads(parts, filters, viewer=user)  # outside the state lock
        async with self:
            if self.tab == tab:  # the user did not switch meanwhile (the new tab read itself)
                (await self._tab_state(tab))._apply_reads(reads)


def failed_toast(exc: DomainError) -> rx.event.EventSpec:
    return toast.error("Error", description=exc.message)
