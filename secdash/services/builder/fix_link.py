"""Fix Mode on a Live Code Builder project: a fix applied to (or reverted from) a project's directory changes the
project's files too, so the builder, the preview and the zip show what the scan verified."""

from __future__ import annotations

from pathlib import Path

from sqlmodel import select
from sqlmodel.ext.asyncio.session import AsyncSession

from secdash.core.unit import mark_changed
from secdash.models.base import utcnow
from secdash.models.builder import BuildLogType, CodeProject, FileChange, ProjectFile
from secdash.services.builder import project_dir
from secdash.services.builder.records import add_log, job_of, shown, topic_of, working
from secdash.services.errors import Conflict


async def _project(session: AsyncSession, root: Path) -> CodeProject | None:
    project_id = project_dir.project_of(root)
    return await session.get(CodeProject, project_id) if project_id is not None else None


async def before_fix(session: AsyncSession, root: Path) -> None:
    """Conflict while the project a fix would write is being built (the build rewrites its directory)."""
    project = await _project(session, root)
    job = await job_of(session, project) if project is not None else None
    if project is not None and working(job):
        status, _ = shown(project, job)
        raise Conflict(f"Project #{project.id} is being built ({status.value}): apply the fix when it is done")


async def after_fix(session: AsyncSession, root: Path, files: dict[str, bytes], message: str) -> None:
    """Store what a fix wrote as the project's files (with the caller's commit) and say so in the project's log."""
    project = await _project(session, root)
    if project is None:
        return
    for path, data in files.items():
        query = select(ProjectFile).where(ProjectFile.project_id == project.id, ProjectFile.filename == path)
        file = (await session.exec(query)).first()
        if file is None:
            continue
        file.previous, file.content = file.content, data.decode("utf-8", errors="replace")
        file.change, file.complete, file.updated_at = FileChange.updated, True, utcnow()
        session.add(file)
    await add_log(session, project, message, BuildLogType.success)
    mark_changed(session, topic_of(project.owner_user_id))
