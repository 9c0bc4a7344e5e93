"""What the builder's request side and its job share: the job kind, the change topic and the log line."""

from __future__ import annotations

from sqlmodel import select
from sqlmodel.ext.asyncio.session import AsyncSession

from secdash.core.unit import mark_changed
from secdash.models.builder import BuildLog, BuildLogType, CodeProject, ProjectFile
from secdash.services.builder.limits import MAX_LOG_CHARS

KIND = "build"
# A job that ended with its worker (the server stopped, the worker vanished): the reaper or the runner says so.
INTERRUPTED = "The build was interrupted (the server stopped during it): run it again"
TOPIC = "builder"  # every build job's row and log (the job system's area topic)


def topic_of(user_id: int) -> str:
    """The change topic of one user's projects (rows, files as they stream, log lines)."""
    return f"builder:{user_id}"


def add_log(session: AsyncSession, project: CodeProject, message: str, kind: BuildLogType = BuildLogType.info) -> None:
    """A line of the project's build log, written with the caller's commit."""
    assert project.id is not None
    session.add(BuildLog(project_id=project.id, type=kind, message=message[:MAX_LOG_CHARS]))
    mark_changed(session, topic_of(project.owner_user_id))


async def file_of(session: AsyncSession, project_id: int, path: str) -> ProjectFile | None:
    """One file of a project by its path (None when the project has no such file)."""
    query = select(ProjectFile).where(ProjectFile.project_id == project_id, ProjectFile.filename == path)
    return (await session.exec(query)).first()
