"""Public shapes of Fix Mode: the fixable problems and the fixes (API answers and page rows)."""

from __future__ import annotations

from typing import Any

from secdash.models.events import EventSeverity
from secdash.models.fixes import Fix, FixKind, FixStatus
from secdash.models.public import PublicModel, UtcDateTime


class FixPublic(PublicModel):
    """A fix: `diff` for code (and for the headers file of a site SecDash serves), `change` for site settings."""

    id: int
    problem_id: int
    kind: FixKind
    status: FixStatus
    site: str
    file: str
    rule: str
    diff: str
    change: dict[str, Any]
    explanation: str
    risk: str
    verification: dict[str, Any]
    error: str | None
    provider: str
    model: str
    job_id: int | None
    served: bool  # SecDash writes this fix itself (a workspace); otherwise the admin applies it on their server
    created_at: UtcDateTime
    updated_at: UtcDateTime
    applied_at: UtcDateTime | None
    verified_at: UtcDateTime | None

    @classmethod
    def of(cls, fix: Fix, *, site: str, served: bool) -> FixPublic:
        assert fix.id is not None
        return cls(
            id=fix.id,
            problem_id=fix.event_id,
            kind=fix.kind,
            status=fix.status,
            site=site,
            file=fix.file,
            rule=fix.rule,
            diff=fix.diff,
            change=fix.change or {},
            explanation=fix.explanation,
            risk=fix.risk,
            verification=fix.verification or {},
            error=fix.error,
            provider=fix.provider,
            model=fix.model,
            job_id=fix.job_id,
            served=served,
            created_at=fix.created_at,
            updated_at=fix.updated_at,
            applied_at=fix.applied_at,
            verified_at=fix.verified_at,
        )


class FixableProblemPublic(PublicModel):
    """An open problem Fix Mode can work on, with the state of its latest fix ("open" when it has none)."""

    problem_id: int
    kind: FixKind
    site: str
    site_id: int | None
    severity: EventSeverity
    title: str
    file: str
    line: int | None
    rule: str
    snippet: str
    state: str  # open | proposing | proposed | applied | verified | not_verified | rejected | failed | reverted
    fix_id: int | None
    offline_recipe: bool  # the offline engine has a recipe for it (a model may try any problem)
    detected_at: UtcDateTime
