"""Fix Mode's display fields, made from the service's records by pure functions (no Reflex state): the problem
rows grouped by site, the recent fixes, the fix panel (the fix, its header change, its verification lists and
progress), and the toast a fix's running step ending calls for. FixModeState (state/fix_mode.py) holds them."""

from __future__ import annotations

import dataclasses
from typing import Any

import reflex as rx

from secdash.models.fixes import FixStatus
from secdash.models.fixes_public import FixableProblemPublic, FixPublic
from secdash.services.fix import problems
from secdash.state.browser_actions import toast

OPEN_STATES = {FixStatus.proposing.value, FixStatus.proposed.value, FixStatus.applied.value}
RUNNING_STATES = {FixStatus.proposing.value, FixStatus.applied.value}
STATE_LABELS = {FixStatus.not_verified.value: "not verified"}
PATCH_URL = "/api/fixes/{id}/patch"


@dataclasses.dataclass
class ProblemRow:
    problem_id: int = 0
    kind: str = ""
    site: str = ""
    severity: str = ""
    title: str = ""
    location: str = ""  # file:line (code) or "" (site)
    rule: str = ""
    snippet: str = ""
    state: str = "open"
    state_label: str = "open"
    fix_id: int = 0
    recipe: bool = False
    busy: bool = False  # a fix of it is open (proposing, proposed or applied): no new proposal


@dataclasses.dataclass
class SiteGroup:
    site: str = ""
    problems: list[ProblemRow] = dataclasses.field(default_factory=list)


@dataclasses.dataclass
class SiteOption:
    value: str = ""
    label: str = ""


@dataclasses.dataclass
class FixRow:
    """A recent fix in the list under the problems."""

    id: int = 0
    status: str = ""
    status_label: str = ""
    site: str = ""
    what: str = ""


@dataclasses.dataclass
class FixView:
    id: int = 0
    problem_id: int = 0
    kind: str = ""
    status: str = ""
    status_label: str = ""
    site: str = ""
    file: str = ""
    rule: str = ""
    explanation: str = ""
    risk: str = ""
    diff: str = ""
    error: str = ""
    engine: str = ""
    served: bool = False
    running: bool = False
    can_apply: bool = False
    can_reject: bool = False
    can_revert: bool = False
    patch_url: str = ""
    checked: bool = False  # a verification result is there
    verified: bool = False  # the finding is gone, nothing new, and the code still works
    fixed: bool = False
    method: str = ""  # rescan | probe
    grade: str = ""
    verification_error: str = ""


@dataclasses.dataclass
class HeaderChange:
    name: str = ""
    value: str = ""


def state_label(state: str) -> str:
    return STATE_LABELS.get(state, state)


def problem_row(row: FixableProblemPublic) -> ProblemRow:
    location = f"{row.file}:{row.line}" if row.file and row.line else row.file
    return ProblemRow(
        problem_id=row.problem_id,
        kind=row.kind.value,
        site=row.site,
        severity=row.severity.value,
        title=row.title,
        location=location,
        rule=row.rule,
        snippet=row.snippet,
        state=row.state,
        state_label=state_label(row.state),
        fix_id=row.fix_id or 0,
        recipe=row.offline_recipe,
        busy=row.state in OPEN_STATES,
    )


def group_by_site(rows: list[FixableProblemPublic]) -> list[SiteGroup]:
    """The problems by site (sites in the order of their first, most severe, problem)."""
    groups: dict[str, SiteGroup] = {}
    for row in rows:
        groups.setdefault(row.site, SiteGroup(site=row.site)).problems.append(problem_row(row))
    return list(groups.values())


def fix_row(fix: FixPublic) -> FixRow:
    what = f"{fix.rule} in {fix.file}" if fix.kind == "code" else fix.rule
    return FixRow(id=fix.id, status=fix.status.value, status_label=state_label(fix.status.value), site=fix.site, what=what)


def fix_view(fix: FixPublic, *, admin: bool = False) -> FixView:
    """The panel's fix. The patch link is left out where the server refuses it: a committed secret's exact patch
    is for admins only."""
    status = fix.status.value
    downloadable = bool(fix.diff) and (admin or not problems.is_secret_rule(fix.rule))
    verification = fix.verification or {}
    checked = "fixed" in verification
    return FixView(
        id=fix.id,
        problem_id=fix.problem_id,
        kind=fix.kind.value,
        status=status,
        status_label=state_label(status),
        site=fix.site,
        file=fix.file,
        rule=fix.rule,
        explanation=fix.explanation,
        risk=fix.risk,
        diff=fix.diff,
        error=fix.error or "",
        engine=f"{fix.provider} ({fix.model})" if fix.provider else "",
        served=fix.served,
        running=status in RUNNING_STATES,
        can_apply=status == FixStatus.proposed,
        can_reject=status == FixStatus.proposed,
        can_revert=status in (FixStatus.verified, FixStatus.not_verified) and fix.served,
        patch_url=PATCH_URL.format(id=fix.id) if downloadable else "",
        checked=checked,
        fixed=verification.get("fixed") is True,
        verified=status == FixStatus.verified,
        method=str(verification.get("method", "")),
        grade=str(verification.get("grade") or ""),
        verification_error=str(verification.get("error", "")),
    )


def header_changes(fix: FixPublic) -> list[HeaderChange]:
    headers = (fix.change or {}).get("headers") or {}
    return (
        [HeaderChange(name=str(name), value=str(value)) for name, value in headers.items()] if isinstance(headers, dict) else []
    )


def texts(value: Any) -> list[str]:
    return [str(item) for item in value] if isinstance(value, list) else []


def outcome_toast(fix: FixPublic, before: str) -> rx.event.EventSpec | None:
    """The toast for a fix this tab watched move on from a running step (None when nothing ended)."""
    status = fix.status
    if before == status.value or before not in RUNNING_STATES:
        return None
    if status == FixStatus.proposed:
        return toast.success("Fix proposed", description=f"Fix #{fix.id} is ready for review")
    if status == FixStatus.verified:
        return toast.success("Fix verified", description=f"Fix #{fix.id}: {fix.rule} is gone")
    if status == FixStatus.not_verified:
        verification = fix.verification or {}
        why = (
            "the problem is still seen"
            if not verification.get("fixed")
            else "the fix breaks the code"
            if verification.get("broken")
            else "the fix introduced a new finding"
        )
        return toast.warning("Fix not verified", description=f"Fix #{fix.id}: {why}")
    if status == FixStatus.failed:
        return toast.error("Fix failed", description=(fix.error or f"Fix #{fix.id} failed")[:300])
    return None


def site_options(sites: list[tuple[int, str]]) -> list[SiteOption]:
    return [SiteOption(value=str(site_id), label=name) for site_id, name in sites]


@dataclasses.dataclass
class FixPanel:
    """What the panel shows of an open fix."""

    fix: FixView = dataclasses.field(default_factory=FixView)
    headers: list[HeaderChange] = dataclasses.field(default_factory=list)
    still_seen: list[str] = dataclasses.field(default_factory=list)
    new_findings: list[str] = dataclasses.field(default_factory=list)
    broken: list[str] = dataclasses.field(default_factory=list)
    progress_percent: int = 0
    progress_phase: str = ""


def fix_panel(fix: FixPublic, progress: dict[str, Any], *, admin: bool) -> FixPanel:
    """The panel's fields of a fix and its running job's progress (percent clamped to 0..100, the phase cut short)."""
    verification = fix.verification or {}
    percent = progress.get("percent", 0)
    return FixPanel(
        fix=fix_view(fix, admin=admin),
        headers=header_changes(fix),
        still_seen=texts(verification.get("stillSeen")),
        new_findings=texts(verification.get("newFindings")),
        broken=texts(verification.get("broken")),
        progress_percent=max(0, min(100, percent)) if isinstance(percent, int) else 0,
        progress_phase=str(progress.get("phase", ""))[:40],
    )


def newer_fix_of(shown: FixableProblemPublic, fix: FixPublic | None, open_fix_id: int) -> bool:
    """Whether the shown problem has a newer fix than the one the panel reads (proposed elsewhere)."""
    return bool(shown.fix_id) and shown.fix_id != open_fix_id and (fix is None or shown.fix_id > fix.id)
