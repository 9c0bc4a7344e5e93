"""The Live Code Builder's display fields, made from the service's records by pure functions (no Reflex state):
the project header, the file list, the build log lines, the viewer's diff rows, which file the viewer shows after
a read, and the toast a finished build calls for. CodeBuilderState (state/code_builder.py) holds what they make."""

from __future__ import annotations

import dataclasses

import reflex as rx

from secdash.models import as_utc
from secdash.models.builder_public import BuildLogPublic, CodeProjectPublic, ProjectFilePublic
from secdash.services.builder.limits import size_text
from secdash.services.diff.compute import line_diff
from secdash.services.diff.rows import DiffRow
from secdash.services.errors import DomainError
from secdash.state.browser_actions import toast

DIFF_KEPT = 400


@dataclasses.dataclass
class BuildLine:
    id: int = 0
    type: str = "info"
    message: str = ""
    time: str = ""

    @classmethod
    def of(cls, line: BuildLogPublic) -> BuildLine:
        return cls(id=line.id, type=line.type.value, message=line.message, time=as_utc(line.timestamp).strftime("%H:%M:%S"))


@dataclasses.dataclass
class FileRow:
    filename: str = ""
    language: str = ""
    description: str = ""
    size: str = ""
    change: str = ""  # created | updated | unchanged
    writing: bool = False  # still being written (or cut off)


@dataclasses.dataclass
class ProjectView:
    id: int = 0
    name: str = ""
    description: str = ""
    status: str = ""
    started: str = ""
    engine: str = ""
    error: str = ""
    checks: str = ""


def file_row(file: ProjectFilePublic, working: bool) -> FileRow:
    return FileRow(
        filename=file.filename,
        language=file.language,
        description=file.description,
        size=size_text(len(file.content.encode())),
        change=file.change.value,
        writing=working and not file.complete,
    )


def log_position(line: BuildLogPublic) -> int:
    return line.id


async def diff_lines(before: str, after: str) -> list[DiffRow]:
    """The viewer's rows (a bounded diff of the service's; a diff too large to compare says so in one row)."""
    try:
        found = await line_diff(before, after, context=2, max_rows=DIFF_KEPT)
    except DomainError as exc:
        return [DiffRow.line("note", exc.message)]
    return [*found.rows, DiffRow.line("note", "... (diff cut here)")] if found.truncated else list(found.rows)


def project_view(project: CodeProjectPublic) -> ProjectView:
    checks = project.checks or {}
    summary = ""
    if "errors" in checks:
        summary = f"{checks.get('errors', 0)} errors, {checks.get('warnings', 0)} warnings"
    engine = (
        "offline template engine"
        if project.engine == "offline"
        else (f"{project.engine} · {project.model}" if project.engine else "")
    )
    return ProjectView(
        id=project.id,
        name=project.name,
        description=project.description,
        status=project.status.value,
        started=as_utc(project.created_at).strftime("%Y-%m-%d %H:%M:%S"),
        engine=engine,
        error=project.error or "",
        checks=summary,
    )


def build_outcome_toast(before: str, project: CodeProjectPublic) -> rx.event.EventSpec | None:
    """The toast for a build whose status moved from `before` ("" at a page's first read: none) to complete or failed."""
    status = project.status.value
    if not before or before == status:
        return None
    if status == "complete":
        return toast.success("Build Complete", description=f"{project.name}: {len(project.files)} files")
    if status == "failed":
        return toast.error("Build Failed", description=(project.error or "The build failed")[:300])
    return None


def selected_after_read(selected: str, files: list[ProjectFilePublic], *, building: bool, pinned: bool) -> str:
    """The file the viewer shows after a read: the one chosen if it is still there (while a build writes, the file
    being written unless the user chose one); else the file being written, index.html, or the first file."""
    names = [file.filename for file in files]
    writing = [file.filename for file in files if not file.complete]
    if selected not in names:
        if writing and building:
            return writing[-1]
        return "index.html" if "index.html" in names else (names[0] if names else "")
    if building and not pinned and writing:  # follow the file being written
        return writing[-1]
    return selected
