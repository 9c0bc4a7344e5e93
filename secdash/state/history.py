"""History Logs: the audit trail in four tabs, refreshed when new entries are written."""

from __future__ import annotations

import dataclasses
import json

import reflex as rx

from secdash.core.db import session_scope
from secdash.models import HistoryLogPublic, UserPublic
from secdash.services import audit
from secdash.state.auth import AuthState, refusal_events
from secdash.state.follow import follow, following
from secdash.state.live import wait_for_change

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


async def read_tabs(user: UserPublic) -> tuple[dict[str, list[LogEntryView]], dict[str, int]]:
    """Each tab's newest entries and the counts the viewer may see."""
    async with session_scope() as session:
        counts = await audit.count_by_category(session=session, viewer=user)
        entries = {
            tab: [
                to_view(log)
                for log in await audit.list_logs(
                    session=session, viewer=user, category=None if tab == "all" else tab
                )
            ]
            for tab in TABS
        }
    return entries, counts


class HistoryState(AuthState):
    """State of /history."""

    active_tab: str = "all"
    loading: bool = True
    all_entries: list[LogEntryView] = []
    security_entries: list[LogEntryView] = []
    ai_entries: list[LogEntryView] = []
    battle_entries: list[LogEntryView] = []
    counts: dict[str, int] = {}

    def _apply(self, entries: dict[str, list[LogEntryView]], counts: dict[str, int]) -> None:
        self.all_entries = entries["all"]
        self.security_entries = entries["security"]
        self.ai_entries = entries["ai"]
        self.battle_entries = entries["battle"]
        self.counts = counts
        self.loading = False

    @rx.event
    async def load(self):
        user = await self._current_user()
        if user is None:
            return self._session_ended()
        self._apply(*await read_tabs(user))
        return HistoryState.follow_changes

    @rx.event
    async def set_active_tab(self, tab: str):
        if await self._current_user() is None:
            return self._session_ended()
        if tab in TABS:
            self.active_tab = tab
        return None

    @rx.event(background=True)
    async def follow_changes(self):
        """Re-read the trail whenever an entry is written (or at least every few seconds)."""
        if await self._current_user() is None:
            yield refusal_events()
            return
        client_token = self.router.session.client_token
        async with follow(client_token, "history", audit.TOPIC) as changes:
            while following(changes, client_token):
                await wait_for_change(changes, MAX_STALENESS_SECONDS)
                if not following(changes, client_token):
                    return
                user = await self._current_user(touch=False)
                if user is None:
                    yield refusal_events()
                    return
                entries, counts = await read_tabs(user)
                async with self:
                    self._apply(entries, counts)
