"""Fix Mode (/fix-mode): the open fixable problems by site, and the fix panel (diff, verification, live job log).

Everything is read through services/fix/overview.py and changed through services/fix/fixes.py, which check the
role (limited users read only) and conflicts; this state turns their domain errors into toasts. The page follows
the "fixes" topic (fix rows and every fix job's log line and progress) and "events" (new findings, closed ones)
and re-reads at least every MAX_STALENESS_SECONDS; the open fix's job log is read from the last line this tab has.
"""

from __future__ import annotations

from typing import Any, ClassVar

import reflex as rx

from secdash.core import notify
from secdash.models import Role, UserPublic
from secdash.models.jobs_public import JobLogPublic
from secdash.services.diff.rows import DiffRow, parse, side_by_side
from secdash.services.errors import DomainError, PermissionDenied
from secdash.services.fix import fixes
from secdash.services.fix.job_kind import TOPIC as FIX_TOPIC
from secdash.services.fix.overview import FixModeRead, read_fix_mode
from secdash.services.problems import events
from secdash.services.scoped import in_session
from secdash.state import follow
from secdash.state.auth import AuthState
from secdash.state.base import protected
from secdash.state.browser_actions import toast
from secdash.state.fix_mode_view import (
    OPEN_STATES,
    FixRow,
    FixView,
    HeaderChange,
    ProblemRow,
    SiteGroup,
    SiteOption,
    fix_panel,
    fix_row,
    group_by_site,
    newer_fix_of,
    outcome_toast,
    problem_row,
    site_options,
    state_label,
)
from secdash.state.followed_page import FollowedPage
from secdash.state.job_log_view import LogLine, job_log_step

PAGE = "fix-mode"
TOPICS = (FIX_TOPIC, events.TOPIC)
MAX_STALENESS_SECONDS = 5.0
LOG_KEPT = 80  # log lines a tab shows
SEVERITY_CHOICES = ("all", "high", "medium", "low")
KIND_CHOICES = ("all", "code", "site")
MAX_FILTER_CHARS = 16
DIFF_MODES = ("unified", "split")
PATCH_URL = "/api/fixes/{id}/patch"


class FixModeState(FollowedPage, AuthState):
    """State of /fix-mode."""

    _follow_page: ClassVar[str] = PAGE

    loading: bool = True
    groups: list[SiteGroup] = []
    problem_count: int = 0
    site_options: list[SiteOption] = []
    filter_site: str = "all"
    filter_severity: str = "all"
    filter_kind: str = "all"
    recent: list[FixRow] = []
    selected_problem: int = 0  # the problem whose row was chosen (0: none)
    problem: ProblemRow = ProblemRow()  # that problem while it is open (its fix may not exist yet)
    has_problem: bool = False
    fix: FixView = FixView()
    has_fix: bool = False
    can_propose: bool = False  # the shown problem is open with no open fix
    diff_rows: list[DiffRow] = []  # the side-by-side view of the fix's diff
    headers: list[HeaderChange] = []
    still_seen: list[str] = []
    new_findings: list[str] = []
    broken: list[str] = []  # what the fix broke (syntax, the page in a browser)
    progress_phase: str = ""
    progress_percent: int = 0
    log: list[LogLine] = []
    diff_mode: str = "unified"  # unified | split (side by side)
    _fix_id: int = 0
    _fix_status: str = ""  # the shown fix's status at the last read (a change from a running step is toasted)
    _log_job: int = 0
    _log_seq: int = 0
    _admin: bool = False  # the verified user of the newest read is an admin (what the panel offers to download)

    # --- applying reads -------------------------------------------------------------------------------

    def _filters(self) -> dict[str, Any]:
        return {
            "site_id": int(self.filter_site) if self.filter_site.isascii() and self.filter_site.isdigit() else None,
            "severity": None if self.filter_severity == "all" else self.filter_severity,
            "kind": None if self.filter_kind == "all" else self.filter_kind,
        }

    async def _read(self, viewer: UserPublic, **filters: Any) -> FixModeRead:
        """A read under the page's filters (or the given ones: Invalid when they are bad)."""
        self._admin = viewer.role == Role.admin
        return await read_fix_mode(
            viewer=viewer, **{**self._filters(), **filters}, fix_id=self._fix_id, log_job=self._log_job, log_after=self._log_seq
        )

    def _apply(self, data: FixModeRead) -> list[rx.event.EventSpec]:
        """Apply a read; return the toasts it calls for."""
        self.groups = group_by_site(data.problems)
        self.problem_count = len(data.problems)
        self.site_options = site_options(data.sites)
        self.recent = [fix_row(fix) for fix in data.recent]
        rows = {row.problem_id: row for row in data.problems}
        out: list[rx.event.EventSpec] = []
        fix = data.fix
        if fix is not None and self.selected_problem and fix.problem_id != self.selected_problem:
            fix = None  # a read that started before another problem was chosen
        shown = rows.get(self.selected_problem)
        self.has_problem = shown is not None
        if shown is not None:
            self.problem = problem_row(shown)
            if newer_fix_of(shown, fix, self._fix_id):
                # a newer fix of this problem (proposed elsewhere): read it next, its log from the start
                self._fix_id, self._fix_status, self._log_job, self._log_seq = shown.fix_id, "", 0, 0
        self.can_propose = shown is not None and shown.state not in OPEN_STATES
        self.has_fix = fix is not None
        if fix is None:
            self._fix_status, self.diff_rows, self.headers, self.still_seen, self.new_findings = "", [], [], [], []
            self.broken = []
            self.fix, self.log, self._log_job, self._log_seq = FixView(), [], 0, 0
        else:
            if self._fix_status:
                toast_event = outcome_toast(fix, self._fix_status)
                if toast_event is not None:
                    out.append(toast_event)
            self._fix_status = fix.status.value
            if fix.diff != self.fix.diff or fix.id != self.fix.id:
                self.diff_rows = side_by_side(parse(fix.diff))
            panel = fix_panel(fix, data.progress, admin=self._admin)
            self.fix, self.headers, self.still_seen = panel.fix, panel.headers, panel.still_seen
            self.new_findings, self.broken = panel.new_findings, panel.broken
            self._apply_log(data.log_job, data.log)
            self.progress_percent, self.progress_phase = panel.progress_percent, panel.progress_phase
        self.loading = False
        return out

    def _apply_log(self, job_id: int, lines: list[JobLogPublic]) -> None:
        # the fix's next step (propose, then verify): its log from the start
        self._log_job, self._log_seq, log = job_log_step(self._log_job, self._log_seq, self.log, job_id, lines, kept=LOG_KEPT)
        if log is not None:
            self.log = log

    def _show_fix(self, fix_id: int, problem_id: int) -> None:
        """Open a fix (0: none) of a problem in the panel; its log is read from its start."""
        if fix_id != self._fix_id:
            self._fix_id, self._fix_status, self._log_job, self._log_seq, self.log = fix_id, "", 0, 0, []
        self.selected_problem = problem_id

    async def _refresh(self, user: UserPublic) -> list[rx.event.EventSpec]:
        return self._apply(await self._read(user))

    # --- handlers -------------------------------------------------------------------------------------

    @protected(reads_only=True)
    async def load(self, user: UserPublic):
        self._fix_status = ""  # outcomes older than this visit are not toasted
        try:
            self._apply(await self._read(user))
        except DomainError as exc:  # filters kept from an earlier visit that no longer hold
            self.filter_site = self.filter_severity = self.filter_kind = "all"
            return toast.error("Error", description=exc.message)
        return FixModeState.follow_changes

    async def _set_filter(self, user: UserPublic, name: str, value: Any, allowed: tuple[str, ...] | None):
        text = str(value).strip()[:MAX_FILTER_CHARS] if value is not None else ""
        if allowed is not None and text not in allowed:
            return toast.error("Error", description=f"{name} must be one of: {', '.join(allowed)}")
        if allowed is None and text != "all" and not (text.isascii() and text.isdigit() and len(text) <= 12):
            return toast.error("Error", description="site must be all or a site id")
        attribute = f"filter_{name}"
        before = getattr(self, attribute)
        setattr(self, attribute, text)
        try:
            return self._apply(await self._read(user))
        except DomainError as exc:  # the service refused the filter: nothing changes
            setattr(self, attribute, before)
            return toast.error("Error", description=exc.message)

    @protected(reads_only=True)
    async def set_filter_site(self, user: UserPublic, value: str):
        return await self._set_filter(user, "site", value, None)

    @protected(reads_only=True)
    async def set_filter_severity(self, user: UserPublic, value: str):
        return await self._set_filter(user, "severity", value, SEVERITY_CHOICES)

    @protected(reads_only=True)
    async def set_filter_kind(self, user: UserPublic, value: str):
        return await self._set_filter(user, "kind", value, KIND_CHOICES)

    @protected(reads_only=True)
    async def set_diff_mode(self, mode: str):
        if mode in DIFF_MODES:
            self.diff_mode = mode
        return None

    @protected(reads_only=True)
    async def select_problem(self, user: UserPublic, problem_id: int):
        """Open a problem in the panel, with its latest fix."""
        try:
            wanted = fixes.parse_id(problem_id, "problemId")
        except DomainError as exc:
            return toast.error("Error", description=exc.message)
        row = next((p for group in self.groups for p in group.problems if p.problem_id == wanted), None)
        if row is None:
            return toast.error("Error", description=f"Problem #{wanted} is not in the list (it may have been fixed)")
        self._show_fix(row.fix_id, row.problem_id)
        return await self._refresh(user)

    @protected(reads_only=True)
    async def select_fix(self, user: UserPublic, fix_id: int):
        """Open a fix from the recent fixes in the panel."""
        try:
            wanted = fixes.parse_id(fix_id, "fixId")
        except DomainError as exc:
            return toast.error("Error", description=exc.message)
        row = next((r for r in self.recent if r.id == wanted), None)
        if row is None:
            return toast.error("Error", description=f"Fix #{wanted} is not among the recent fixes")
        self._show_fix(wanted, 0)
        data = await self._read(user)
        if data.fix is not None:
            self.selected_problem = data.fix.problem_id
        return self._apply(data)

    @protected
    async def propose(self, user: UserPublic, problem_id: int):
        """Ask the problem's agent for a fix (admins; one open fix per problem: the server says so otherwise)."""
        try:
            fix = await in_session(fixes.propose, actor=user, problem_id=problem_id)
        except PermissionDenied as exc:
            return toast.error("Access denied", description=exc.message)
        except DomainError as exc:  # Conflict (a fix is open), Invalid or NotFound: nothing changed
            return [toast.error("Error", description=exc.message), *await self._refresh(user)]
        self._show_fix(fix.id, fix.problem_id)
        self._fix_status = fix.status.value
        events_out = await self._refresh(user)
        return [toast.info("Fix requested", description=f"Fix #{fix.id}: the agent is writing it"), *events_out]

    async def _decide(self, user: UserPublic, action, done: str):
        if not self._fix_id:
            return toast.error("Error", description="Open a fix first")
        try:
            fix = await in_session(action, actor=user, fix_id=self._fix_id)
        except PermissionDenied as exc:
            return toast.error("Access denied", description=exc.message)
        except DomainError as exc:  # the fix moved on meanwhile, or no longer applies
            return [toast.error("Error", description=exc.message), *await self._refresh(user)]
        self._fix_status = fix.status.value
        return [toast.success(done, description=f"Fix #{fix.id} is {state_label(fix.status.value)}"), *await self._refresh(user)]

    @protected
    async def apply_fix(self, user: UserPublic):
        """Write the open (proposed) fix and start its verification (admins)."""
        return await self._decide(user, fixes.apply, "Fix applied")

    @protected
    async def reject_fix(self, user: UserPublic):
        return await self._decide(user, fixes.reject, "Fix rejected")

    @protected
    async def revert_fix(self, user: UserPublic):
        """Write back what the open (checked) fix replaced (admins)."""
        return await self._decide(user, fixes.revert, "Fix reverted")

    @protected(reads_only=True, background=True)
    async def follow_changes(self):
        """Re-read on every fix change (rows, job log lines, progress) and on new or closed problems."""
        async for out in follow.signed_in_rounds(
            self, PAGE, *TOPICS, timeout=MAX_STALENESS_SECONDS, each_round=self._follow_round, skip=(DomainError,)
        ):
            yield out

    async def _follow_round(self, user: UserPublic, _changed: notify.Changed) -> list[rx.event.EventSpec]:
        async with self:
            fix_id, filters = self._fix_id, self._filters()
            log_job, log_seq = self._log_job, self._log_seq
        data = await read_fix_mode(
            viewer=user, **filters, fix_id=fix_id, log_job=log_job, log_after=log_seq
        )  # outside the state lock
        async with self:
            if self._fix_id != fix_id or self._filters() != filters:  # the tab moved on (and read afresh)
                return []
            self._admin = user.role == Role.admin
            return self._apply(data)
