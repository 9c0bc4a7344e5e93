"""Public shapes of the HTML artifacts (spec section 3: artifact, artifact history entry)."""

from __future__ import annotations

from typing import Any

from secdash.models.artifacts import Artifact, ArtifactStatus, ArtifactVersion, VersionSource
from secdash.models.public import PublicModel, UtcDateTime


class ArtifactFindingPublic(PublicModel):
    """What SecDash's checks found in a version's HTML (structure, inline scripts, the code scan)."""

    check: str  # html | links | javascript | scan
    level: str  # error | warning
    line: int | None
    message: str


def findings_of(rows: list[dict[str, Any]] | None) -> list[ArtifactFindingPublic]:
    return [ArtifactFindingPublic.model_validate(row) for row in rows or []]


class ArtifactPublic(PublicModel):
    """An artifact as it is now: the newest version's HTML, or the generation under way (`draft`)."""

    id: int
    name: str
    version: int  # 0 until the first version exists
    html_content: str
    updated_at: UtcDateTime
    created_at: UtcDateTime
    status: ArtifactStatus
    generating: bool
    draft: str | None  # the HTML streamed so far while generating
    prompt: str  # of the generation running or last run
    error: str | None  # why the last generation failed
    engine: str
    model: str
    current: bool  # the user's open artifact
    findings: list[ArtifactFindingPublic]  # of the newest version

    @classmethod
    def of(
        cls, row: Artifact, status: ArtifactStatus, error: str | None, findings: list[dict[str, Any]] | None = None
    ) -> ArtifactPublic:
        """`status` and `error` as the artifact reads (services/artifacts/records.py `shown`: generating while its
        job runs, else its outcome)."""
        assert row.id is not None
        generating = status == ArtifactStatus.generating
        return cls(
            id=row.id,
            name=row.name,
            version=row.version,
            html_content=row.html_content,
            updated_at=row.updated_at,
            created_at=row.created_at,
            status=status,
            generating=generating,
            draft=row.draft if generating else None,
            prompt=row.prompt,
            error=error,
            engine=row.engine,
            model=row.model,
            current=row.current_of is not None,
            findings=findings_of(findings),
        )


class ArtifactSummaryPublic(PublicModel):
    """An artifact in a list, without its HTML."""

    id: int
    name: str
    version: int
    updated_at: UtcDateTime
    status: ArtifactStatus
    current: bool

    @classmethod
    def of(cls, row: Artifact, status: ArtifactStatus) -> ArtifactSummaryPublic:
        assert row.id is not None
        return cls(
            id=row.id,
            name=row.name,
            version=row.version,
            updated_at=row.updated_at,
            status=status,
            current=row.current_of is not None,
        )


class ArtifactVersionPublic(PublicModel):
    """A history entry (spec: id, version, htmlContent, changes, prompt, createdAt) plus where it came from and
    what the checks found in it."""

    id: int
    version: int
    html_content: str
    changes: str
    prompt: str
    created_at: UtcDateTime
    source: VersionSource
    findings: list[ArtifactFindingPublic]

    @classmethod
    def of(cls, row: ArtifactVersion) -> ArtifactVersionPublic:
        assert row.id is not None
        return cls(
            id=row.id,
            version=row.version,
            html_content=row.html_content,
            changes=row.changes,
            prompt=row.prompt,
            created_at=row.created_at,
            source=row.source,
            findings=findings_of(row.findings),
        )


class ArtifactVersionNotePublic(PublicModel):
    """A history entry without its HTML (the Version History list)."""

    id: int
    version: int
    changes: str
    prompt: str
    created_at: UtcDateTime
    source: VersionSource


class DiffLinePublic(PublicModel):
    kind: str  # added | removed | context | hunk
    text: str
    old_line: int | None
    new_line: int | None


class ArtifactDiffPublic(PublicModel):
    """The line diff of two versions' HTML."""

    from_version: int
    to_version: int
    added: int
    removed: int
    unified: str  # the unified diff text (`git apply`-style headers)
    lines: list[DiffLinePublic]  # the same, one row per line, with line numbers
    truncated: bool
