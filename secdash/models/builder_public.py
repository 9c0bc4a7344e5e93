"""Public shapes of the Live Code Builder (spec section 3: code project, project file, build log entry)."""

from __future__ import annotations

from secdash.models.builder import WORKING_STATUSES, BuildLogType, CodeProject, FileChange, ProjectFile, ProjectStatus
from secdash.models.jobs import JobLog
from secdash.models.public import PublicModel, UtcDateTime


class ProjectFilePublic(PublicModel):
    id: int
    filename: str
    language: str
    description: str
    content: str
    change: FileChange
    previous: str | None  # the content before the newest continue changed it (for the diff), else None
    complete: bool  # False while the file is being written (or the answer ended inside it)

    @classmethod
    def of(cls, row: ProjectFile) -> ProjectFilePublic:
        assert row.id is not None
        return cls(
            id=row.id,
            filename=row.filename,
            language=row.language,
            description=row.description,
            content=row.content,
            change=row.change,
            previous=row.previous if row.change == FileChange.updated else None,
            complete=row.complete,
        )


class CodeProjectPublic(PublicModel):
    id: int
    name: str
    description: str
    status: ProjectStatus
    created_at: UtcDateTime
    updated_at: UtcDateTime
    files: list[ProjectFilePublic]
    current: bool
    building: bool  # a build or continue is running (planning, building or testing)
    snapshot_of: int | None
    engine: str
    model: str
    error: str | None
    checks: dict

    @classmethod
    def of(cls, project: CodeProject, files: list[ProjectFile], status: ProjectStatus, error: str | None) -> CodeProjectPublic:
        """`status` and `error` as the project reads (services/builder/records.py `shown`: its job's phase while
        one runs, else its outcome)."""
        assert project.id is not None
        return cls(
            id=project.id,
            name=project.name,
            description=project.description,
            status=status,
            created_at=project.created_at,
            updated_at=project.updated_at,
            files=[ProjectFilePublic.of(row) for row in files],
            current=project.current_of is not None,
            building=status in WORKING_STATUSES,
            snapshot_of=project.snapshot_of,
            engine=project.engine,
            model=project.model,
            error=error,
            checks=project.checks or {},
        )


class BuildLogPublic(PublicModel):
    """A line of a project's build log: a line of one of its build jobs' logs (`id`: the line's id, increasing
    across the project's jobs, so a page reads from the last one it has)."""

    id: int
    type: BuildLogType
    message: str
    timestamp: UtcDateTime

    @classmethod
    def of(cls, row: JobLog) -> BuildLogPublic:
        assert row.id is not None
        level = str(row.level)
        kind = BuildLogType(level) if level in BuildLogType.__members__ else BuildLogType.info  # a warning: info
        return cls(id=row.id, type=kind, message=row.message, timestamp=row.created_at)


class ProjectSummaryPublic(PublicModel):
    """A project in the list (GET /api/code-project): no file contents."""

    id: int
    name: str
    description: str
    status: ProjectStatus
    created_at: UtcDateTime
    current: bool
    snapshot_of: int | None
    file_count: int
    snapshot_count: int = 0  # saved snapshots of this project
    updated_at: UtcDateTime | None = None
