"""The problems Fix Mode can work on: open scanner findings (file, line, rule) and open site findings (headers).

A problem is a security event; this module reads what a fix needs from it (where the code is, which rule, which
site and agent) and lists the open ones with the state of their latest fix. A problem in a private builder project
is its owner's (services/private_work.py): anyone else, administrators included, is told it does not exist.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from secdash.models import EventSeverity, EventType, SecurityEvent, Site, UserPublic
from secdash.models.fixes import Fix, FixKind
from secdash.models.fixes_public import FixableProblemPublic
from secdash.services import private_work
from secdash.services.code_scan import Finding
from secdash.services.errors import Invalid, NotFound
from secdash.services.fix import recipes, site_fixes
from secdash.services.scanning import code_roots

SNIPPET_CONTEXT = 2  # lines shown above and below a finding
_LOCATION = re.compile(r"\s*\([^()]*:\d+\)\s*$")
# A quoted token long enough to be a key, with a digit (what the secret scanner flags; not a path): shown with its
# first 4 characters only.
_SECRET_LITERAL = re.compile(r"""(["'])(?=[A-Za-z0-9+/=_\-.]*\d)([A-Za-z0-9+/=_\-.]{4})([A-Za-z0-9+/=_\-.]{12,})\1""")
KINDS = ("code", "site")
SEVERITIES = tuple(severity.value for severity in EventSeverity)


@dataclass(frozen=True)
class ProblemFacts:
    """What a fix for one problem needs to know."""

    event: SecurityEvent
    kind: FixKind
    site_name: str
    site_slug: str | None  # the bundled demo site it is (SecDash serves it), else None
    agent_id: str
    root: Path | None  # code: the code root the finding's path is relative to; site (demo): the demo sources
    file: str  # code: the finding's file; site (demo): "<slug>/headers.json"; site (other): ""
    rule: str  # code: the scanner rule; site: the finding's text
    line: int | None = None

    @property
    def served(self) -> bool:
        """SecDash writes this fix itself: every code fix (a workspace) and a demo site's headers."""
        return self.kind == FixKind.code or self.site_slug is not None

    def finding(self) -> Finding:
        details = self.event.details or {}
        message = _LOCATION.sub("", self.event.description)
        return Finding(
            file=self.file,
            line=int(self.line or 0),
            rule=self.rule,
            severity=self.event.severity,
            message=message,
            tool=str(details.get("tool", "")),
        )

    def facts_for_agent(self) -> dict[str, object]:
        """The finding as the agent's prompt shows it (as data)."""
        if self.kind == FixKind.code:
            finding = self.finding()
            return {
                "file": finding.file,
                "line": finding.line,
                "rule": finding.rule,
                "severity": finding.severity,
                "message": finding.message,
                "tool": finding.tool,
            }
        return {"finding": self.rule, "site": self.site_name, "url": (self.event.details or {}).get("url", "")}


def is_fixable(event: SecurityEvent) -> bool:
    """An open finding Fix Mode understands: a scanner finding with its code root, or a monitor header finding."""
    details = event.details or {}
    if event.event_type != EventType.vulnerability_detected:
        return False
    if event.source == "scanner":
        return bool(details.get("file") and details.get("rule") and details.get("root"))
    # a site finding needs its site (a removed site's problems are closed; older ones may be left without it)
    return (
        event.source == "monitor" and details.get("kind") == "site" and bool(details.get("finding")) and event.site_id is not None
    )


def facts_of(event: SecurityEvent, site: Site | None) -> ProblemFacts:
    if event.source == "monitor" and (event.site_id is None or site is None):
        raise Invalid("This problem cannot be fixed: its site was removed")
    if not is_fixable(event):
        raise Invalid("This problem cannot be fixed in Fix Mode: only open code findings and site header findings can")
    details = event.details or {}
    slug = site.default_slug if site is not None and site.is_demo and site.default_slug in code_roots.DEMO_SLUGS else None
    name = site.name if site is not None else "Unassigned"
    agent = slug or "general"
    if event.source == "scanner":
        return ProblemFacts(
            event=event,
            kind=FixKind.code,
            site_name=name,
            site_slug=slug,
            agent_id=agent,
            root=Path(details["root"]),
            file=str(details["file"]),
            rule=str(details["rule"]),
            line=int(details["line"]) if str(details.get("line", "")).isdigit() else None,
        )
    finding = site_fixes.finding_text(str(details["finding"]))
    if slug is not None:
        return ProblemFacts(
            event=event,
            kind=FixKind.site,
            site_name=name,
            site_slug=slug,
            agent_id=agent,
            root=code_roots.DEMO_SOURCES,
            file=f"{slug}/{site_fixes.HEADERS_FILE}",
            rule=finding,
        )
    return ProblemFacts(
        event=event, kind=FixKind.site, site_name=name, site_slug=None, agent_id=agent, root=None, file="", rule=finding
    )


async def load(session: AsyncSession, viewer: UserPublic, problem_id: int) -> ProblemFacts:
    """The facts of an open, fixable problem the viewer may read; NotFound / Invalid otherwise."""
    event = await session.get(SecurityEvent, problem_id)
    if event is None or not await private_work.may_read_root(session, viewer, (event.details or {}).get("root")):
        raise NotFound("No problem with this id")
    if event.resolved:
        raise Invalid(f"Problem #{problem_id} is already resolved")
    site = await session.get(Site, event.site_id) if event.site_id is not None else None
    return facts_of(event, site)


def is_secret_rule(rule: str) -> bool:
    return rule.startswith("secret:")


def mask_secrets(text: str) -> str:
    """`text` with key-like string literals cut to their first 4 characters (the page and the API never show a
    committed secret whole; the patch download, for admins, keeps the exact bytes)."""
    return _SECRET_LITERAL.sub(lambda m: f"{m[1]}{m[2]}{'*' * 8}{m[1]}", text)


def snippet(facts: ProblemFacts) -> str:
    """The lines around a code finding as the scan reads them now, numbered ("" when unreadable)."""
    if facts.kind != FixKind.code or facts.root is None or not facts.line:
        return ""
    try:
        text = (code_roots.source_of(facts.root) / facts.file).read_text(errors="replace")
    except OSError:
        return ""
    lines = text.splitlines()
    first = max(1, facts.line - SNIPPET_CONTEXT)
    last = min(len(lines), facts.line + SNIPPET_CONTEXT)
    text = "\n".join(f"{number:>4} {lines[number - 1]}" for number in range(first, last + 1))
    return mask_secrets(text) if is_secret_rule(facts.rule) else text


def has_recipe(facts: ProblemFacts) -> bool:
    if facts.kind == FixKind.code:
        return recipes.recipe_for(facts.rule) is not None
    return site_fixes.recipe_for(facts.rule) is not None


def _choice(value: str | None, allowed: tuple[str, ...], name: str) -> str | None:
    if value in (None, "", "all"):
        return None
    if value not in allowed:
        raise Invalid(f"{name} must be one of: all, {', '.join(allowed)}")
    return value


async def list_problems(
    *, session: AsyncSession, viewer: UserPublic, site_id: int | None = None, severity: str | None = None, kind: str | None = None
) -> list[FixableProblemPublic]:
    """Open fixable problems the viewer may read, most severe first, with their latest fix's state."""
    severity = _choice(severity, SEVERITIES, "severity")
    kind = _choice(kind, KINDS, "kind")
    query = select(SecurityEvent).where(
        SecurityEvent.resolved == False,  # noqa: E712
        SecurityEvent.event_type == EventType.vulnerability_detected,
    )
    if site_id is not None:
        query = query.where(SecurityEvent.site_id == site_id)
    if severity is not None:
        query = query.where(SecurityEvent.severity == severity)
    reader = private_work.RootReader(session, viewer)
    events = [
        event
        for event in await session.exec(query.order_by(col(SecurityEvent.id)))
        if is_fixable(event) and await reader.may_read((event.details or {}).get("root"))
    ]
    sites = {site.id: site for site in await session.exec(select(Site))}
    latest: dict[int, Fix] = {}
    if events:
        fixes = await session.exec(select(Fix).where(col(Fix.event_id).in_([e.id for e in events])).order_by(col(Fix.id)))
        latest = {fix.event_id: fix for fix in fixes}
    rows = []
    for event in events:
        facts = facts_of(event, sites.get(event.site_id))
        if kind is not None and facts.kind != kind:
            continue
        fix = latest.get(event.id or 0)
        rows.append(
            FixableProblemPublic(
                problem_id=event.id,
                kind=facts.kind,
                site=facts.site_name,
                site_id=event.site_id,
                severity=event.severity,
                title=event.description,
                file=facts.file if facts.kind == FixKind.code else "",
                line=facts.line,
                rule=facts.rule,
                snippet=snippet(facts),
                state=fix.status.value if fix else "open",
                fix_id=fix.id if fix else None,
                offline_recipe=has_recipe(facts),
                detected_at=event.created_at,
            )
        )
    order = {"high": 0, "medium": 1, "low": 2}
    return sorted(rows, key=lambda row: (order.get(row.severity, 3), row.site, row.problem_id))
