"""A user's code projects as a list they manage: rename one, delete one (the list itself is
`projects.list_projects`). Only the owner can: anyone else, admins included, is told the project does not exist
(`projects.owned`)."""

from __future__ import annotations

import asyncio
from typing import Any

from sqlalchemy import delete as sql_delete
from sqlalchemy import update
from sqlmodel import col
from sqlmodel.ext.asyncio.session import AsyncSession

from secdash.core.unit import commit, mark_changed
from secdash.jobs import store
from secdash.models import LogCategory, UserPublic, utcnow
from secdash.models.builder import CodeProject, ProjectFile
from secdash.models.builder_public import CodeProjectPublic
from secdash.models.jobs import JobLog
from secdash.services import audit
from secdash.services.builder import project_dir, projects
from secdash.services.builder.records import job_of, jobs_of, topic_of, working
from secdash.services.errors import Invalid

MAX_NAME_CHARS = 100


def parse_name(value: Any) -> str:
    """A project name: text, trimmed, 1 to MAX_NAME_CHARS characters on one line."""
    if not isinstance(value, str):
        raise Invalid("name must be text")
    name = " ".join(value.split())
    if not name:
        raise Invalid("Name is required: give the project a name")
    if len(name) > MAX_NAME_CHARS:
        raise Invalid(f"name must be at most {MAX_NAME_CHARS} characters")
    return name


async def rename(*, session: AsyncSession, actor: UserPublic, project_id: object, name: object) -> CodeProjectPublic:
    """Give one of the user's projects (or snapshots) a new name."""
    project = await projects.owned(session, actor, project_id)
    new_name = parse_name(name)
    old_name, project.name, project.updated_at = project.name, new_name, utcnow()
    session.add(project)
    audit.record(
        session,
        category=LogCategory.ai,
        action="Code project renamed",
        actor_user_id=actor.id,
        description=f"{actor.email} renamed project #{project.id}",
        details={"projectId": project.id, "from": old_name, "to": new_name},
    )
    mark_changed(session, topic_of(actor.id))
    await commit(session)
    await session.refresh(project)
    return await projects.public(session, project)


async def delete(*, session: AsyncSession, actor: UserPublic, project_id: object) -> None:
    """Delete one of the user's projects: its files, log and directory (a running build is asked to stop first).
    Its saved snapshots stay, as projects of their own."""
    project = await projects.owned(session, actor, project_id)
    assert project.id is not None
    job = await job_of(session, project)
    if job is not None and working(job):
        store.request_stop(session, job)
    wanted = project.id
    await session.exec(sql_delete(JobLog).where(col(JobLog.job_id).in_(jobs_of([wanted]))))  # type: ignore[call-overload]
    await session.exec(sql_delete(ProjectFile).where(col(ProjectFile.project_id) == wanted))  # type: ignore[call-overload]
    await session.exec(  # type: ignore[call-overload]
        update(CodeProject)
        .execution_options(synchronize_session=False)
        .where(col(CodeProject.snapshot_of) == wanted)
        .values(snapshot_of=None)
    )
    await session.delete(project)
    audit.record(
        session,
        category=LogCategory.ai,
        action="Code project deleted",
        actor_user_id=actor.id,
        description=f"{actor.email} deleted project #{wanted}",
        details={"projectId": wanted, "name": project.name},
    )
    mark_changed(session, topic_of(actor.id))
    await commit(session)
    await asyncio.to_thread(project_dir.remove, wanted)
