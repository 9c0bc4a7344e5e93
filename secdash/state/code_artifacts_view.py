"""The HTML artifacts page's display fields, made from the service's records by pure functions (no Reflex state):
the rows of the recent list and the version history, the findings, the compare view's rows and summary, the
toast a generation's end calls for, and which view (edit, preview, compare) a read leaves open.
CodeArtifactsState (state/code_artifacts.py) holds what they make."""

from __future__ import annotations

import dataclasses

import reflex as rx

from secdash.models import as_utc
from secdash.models.artifacts_public import (
    ArtifactDiffPublic,
    ArtifactFindingPublic,
    ArtifactPublic,
    ArtifactSummaryPublic,
    ArtifactVersionNotePublic,
)
from secdash.services.diff.rows import DiffRow
from secdash.state.browser_actions import toast

STOPPED = "Stopped"  # the error of a generation its user stopped (services/artifacts/generate_job.py)
SOURCE_LABELS = {"model": "model", "offline": "offline engine", "edit": "edited by hand", "restore": "restored"}


@dataclasses.dataclass
class ArtifactRow:
    id: int = 0
    name: str = ""
    version: int = 0
    updated: str = ""
    generating: bool = False


@dataclasses.dataclass
class VersionRow:
    version: int = 0
    time: str = ""
    note: str = ""
    source: str = ""


@dataclasses.dataclass
class FindingRow:
    level: str = "warning"
    line: str = ""
    message: str = ""


@dataclasses.dataclass
class ArtifactView:
    id: int = 0
    name: str = ""
    version: int = 0  # the newest version (0 before the first one)
    status: str = ""
    engine: str = ""
    error: str = ""


def artifact_row(row: ArtifactSummaryPublic) -> ArtifactRow:
    return ArtifactRow(
        id=row.id,
        name=row.name,
        version=row.version,
        updated=as_utc(row.updated_at).strftime("%Y-%m-%d %H:%M"),
        generating=row.status.value == "generating",
    )


def version_row(row: ArtifactVersionNotePublic) -> VersionRow:
    return VersionRow(
        version=row.version,
        time=as_utc(row.created_at).strftime("%Y-%m-%d %H:%M:%S"),
        note=row.changes or row.prompt,
        source=SOURCE_LABELS.get(row.source.value, row.source.value),
    )


def finding_rows(findings: list[ArtifactFindingPublic]) -> list[FindingRow]:
    return [FindingRow(level=f.level, line=str(f.line) if f.line else "", message=f.message) for f in findings]


def diff_rows(diff: ArtifactDiffPublic) -> list[DiffRow]:
    return [DiffRow.line(line.kind, line.text, line.old_line, line.new_line) for line in diff.lines]


def artifact_view(artifact: ArtifactPublic) -> ArtifactView:
    engine = (
        "offline template engine"
        if artifact.engine == "offline"
        else (f"{artifact.engine} · {artifact.model}" if artifact.engine else "")
    )
    return ArtifactView(
        id=artifact.id,
        name=artifact.name,
        version=artifact.version,
        status=artifact.status.value,
        engine=engine,
        error=artifact.error or "",
    )


def generation_outcome_toast(before: str, current: ArtifactPublic) -> rx.event.EventSpec | None:
    """The toast for a generation this tab saw running (`before`) that ended without a version."""
    if before != "generating" or current.status.value != "failed":
        return None
    if current.error == STOPPED:
        return toast.info("Generation Stopped", description="No new version was made")
    return toast.error("Generation Failed", description=(current.error or "The generation failed")[:300])


def mode_after_read(mode: str, *, new_version_shown: bool, generating: bool, loaded_version: int) -> str:
    """The view a read leaves open: the source (edit) while the model writes it, the preview of a version just
    shown (unless it is being edited by hand), never an edit of nothing."""
    if new_version_shown and (mode == "compare" or (mode == "edit" and not generating)):
        mode = "preview"
    if generating:
        return "edit"  # the source fills as the model writes
    if mode == "edit" and loaded_version == 0:
        return "preview"
    return mode


def compare_summary(diff: ArtifactDiffPublic, rows: list[DiffRow]) -> str:
    """The compare view's line above the rows."""
    if not rows:
        return f"v{diff.from_version} and v{diff.to_version} have the same HTML"
    cut = " (cut)" if diff.truncated else ""
    return f"v{diff.from_version} → v{diff.to_version}: +{diff.added} −{diff.removed} lines{cut}"
