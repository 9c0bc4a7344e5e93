"""The Dashboard's Problem Database tab: every security event, filtered; admins resolve them with a note."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from secdash.models import UserPublic, utcnow
from secdash.services.errors import DomainError
from secdash.services.problems import events, resolution
from secdash.services.reads import page_reads
from secdash.services.scoped import in_session
from secdash.state.base import protected
from secdash.state.browser_actions import toast
from secdash.state.dashboard_base import DashboardState, failed_toast
from secdash.state.dashboard_views import (
    EventView,
    event_view,
)


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
                resolution.resolve_event,
                actor=user,
                event_id=self.resolving_id,
                note=self.resolve_note,
                disposition=self.resolve_disposition,
                accepted_until=until if self.resolve_disposition == "accepted_risk" else None,
            )
        except DomainError as exc:
            return failed_toast(exc)
        self.resolving_id = 0
        await self._reload()
        return toast.success("Event resolved")
