"""History Logs: the audit trail in four tabs, refreshed when new entries are written."""

from __future__ import annotations

import dataclasses
import json
from typing import ClassVar

import reflex as rx

from secdash.core import notify
from secdash.models import HistoryLogPublic, UserPublic
from secdash.services import audit
from secdash.services.errors import DomainError
from secdash.services.reads import page_reads
from secdash.state import follow
from secdash.state.auth import AuthState
from secdash.state.base import protected
from secdash.state.browser_actions import toast
from secdash.state.followed_page import FollowedPage

TABS = ("all", "security", "ai", "battle")
# The spec's polling interval for the full list, kept as the upper bound on staleness.
MAX_STALENESS_SECONDS = 5.0


@dataclasses.dataclass
class LogEntryView:
    id: int
    category: str
    action: str
    severity: str
    description: str
    metadata_json: str
    time_label: str


def to_view(log: HistoryLogPublic) -> LogEntryView:
    return LogEntryView(
        id=log.id,
        category=log.category,
        action=log.action,
        severity=log.severity,
        description=log.description,
        metadata_json=json.dumps(log.metadata, indent=2, sort_keys=True, default=str),
        time_label=log.timestamp.strftime("%b %d, %H:%M:%S"),
    )


PAGE = "history"  # the follow loop's key
PAGE_SIZE = audit.DEFAULT_LIMIT
MAX_LOADED = audit.MAX_LIMIT  # entries one tab keeps on the page; beyond that, narrow with the filter


async def read_tabs(
    user: UserPublic,
    search: str = "",
    depth: dict[str, int] | None = None,
) -> tuple[dict[str, list[LogEntryView]], dict[str, int]]:
    """Each tab's newest entries (as many as the tab already shows, at least a page) and the counts
    the viewer may see, all matching the text filter."""
    depth = depth or {}
    limits = {tab: min(MAX_LOADED, max(PAGE_SIZE, depth.get(tab, 0))) for tab in TABS}
    entries, counts = await page_reads.history_tabs(viewer=user, tabs=TABS, search=search, limits=limits)
    return {tab: [to_view(log) for log in logs] for tab, logs in entries.items()}, counts


async def read_page(user: UserPublic, tab: str, before: int, search: str) -> list[LogEntryView]:
    """The next page of a tab, older than the entry `before`."""
    return [
        to_view(log) for log in await page_reads.history_page(viewer=user, tab=tab, before=before, search=search, limit=PAGE_SIZE)
    ]


class HistoryState(FollowedPage, AuthState):
    """State of /history."""

    _follow_page: ClassVar[str] = PAGE

    active_tab: str = "all"
    loading: bool = True
    all_entries: list[LogEntryView] = []
    security_entries: list[LogEntryView] = []
    ai_entries: list[LogEntryView] = []
    battle_entries: list[LogEntryView] = []
    counts: dict[str, int] = {}
    search: str = ""

    def _tab_entries(self, tab: str) -> list[LogEntryView]:
        return getattr(self, f"{tab}_entries")

    def _depth(self) -> dict[str, int]:
        return {tab: len(self._tab_entries(tab)) for tab in TABS}

    def _apply(self, entries: dict[str, list[LogEntryView]], counts: dict[str, int]) -> None:
        self.all_entries = entries["all"]
        self.security_entries = entries["security"]
        self.ai_entries = entries["ai"]
        self.battle_entries = entries["battle"]
        self.counts = counts
        self.loading = False

    @rx.var
    def shown(self) -> dict[str, int]:
        # Each list named outright: Reflex tracks a computed var's dependencies from its code.
        return {
            "all": len(self.all_entries),
            "security": len(self.security_entries),
            "ai": len(self.ai_entries),
            "battle": len(self.battle_entries),
        }

    @protected(reads_only=True)
    async def load(self, user: UserPublic):
        self._apply(*await read_tabs(user, self.search))
        return HistoryState.follow_changes

    @protected(reads_only=True)
    async def set_active_tab(self, tab: str):
        if tab in TABS:
            self.active_tab = tab
        return None

    @protected(reads_only=True)
    async def set_search(self, user: UserPublic, value: str):
        """Filter every tab by text (action or description); starts again from the newest entries."""
        try:
            text = audit.parse_search(str(value))  # the API's rule and message
        except DomainError as exc:
            return toast.error("Error", description=exc.message)
        self.search = text
        self._apply(*await read_tabs(user, text))
        return None

    @protected(reads_only=True)
    async def load_more(self, user: UserPublic, tab: str):
        """The next page of older entries for one tab."""
        if tab not in TABS:
            return None
        current = self._tab_entries(tab)
        if not current or len(current) >= MAX_LOADED:
            return None
        try:
            older = await read_page(user, tab, current[-1].id, self.search)
        except DomainError as exc:
            return toast.error("Error", description=exc.message)
        setattr(self, f"{tab}_entries", (current + older)[:MAX_LOADED])
        return None

    @protected(reads_only=True, background=True)
    async def follow_changes(self):
        """Re-read the trail whenever an entry is written (or at least every few seconds), keeping
        as many entries per tab as the page shows and the current filter."""
        async for out in follow.signed_in_rounds(
            self, PAGE, audit.TOPIC, timeout=MAX_STALENESS_SECONDS, each_round=self._follow_round
        ):
            yield out

    async def _follow_round(self, user: UserPublic, _changed: notify.Changed) -> None:
        async with self:
            search, depth = self.search, self._depth()
        entries, counts = await read_tabs(user, search, depth)
        async with self:
            if self.search == search:  # the filter did not change meanwhile
                self._apply(entries, counts)
