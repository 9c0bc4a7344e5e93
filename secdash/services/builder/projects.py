"""Code projects as their owners use them: build, continue, save, new, clear all, list, read, logs.

A project belongs to one user; anyone else (admins included) is told it does not exist. The writing itself (plan,
files, checks) happens in the "build" job (services/builder/build_job.py); a user runs one build at a time (the
job's singleton key, so the database decides, not a prior read). Each user has at most one current project
(`CodeProject.current_of`, unique). Whether a project is being built, and in which phase, is its newest job's
state (records.shown); reads never write. Its log is the log of its build jobs.
"""

from __future__ import annotations

import asyncio

from sqlalchemy import delete, func, update
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from secdash.core.unit import commit, mark_changed
from secdash.jobs import runner, store
from secdash.models import LogCategory, UserPublic
from secdash.models.builder import WORKING_STATUSES, BuildLogType, CodeProject, ProjectFile, ProjectStatus
from secdash.models.builder_public import BuildLogPublic, CodeProjectPublic, ProjectSummaryPublic
from secdash.models.jobs import Job, JobLog
from secdash.services import audit, storage
from secdash.services.builder import build_job, project_dir  # noqa: F401  (build_job registers the "build" kind)
from secdash.services.builder.limits import LOG_PAGE, MAX_PROJECTS, parse_after, parse_id, parse_prompt
from secdash.services.builder.records import KIND, add_log, job_of, jobs_of, shown, topic_of, working
from secdash.services.errors import Conflict, Invalid, NotFound

NAME_CHARS = 60


def provisional_name(prompt: str) -> str:
    """A name until the plan gives one: the prompt's first words."""
    words = " ".join(prompt.split())
    return words if len(words) <= NAME_CHARS else words[: NAME_CHARS - 1].rsplit(" ", 1)[0] + "…"


async def owned(session: AsyncSession, viewer: UserPublic, project_id: object) -> CodeProject:
    """The viewer's project (NotFound for anyone else's, admins included)."""
    wanted = parse_id(project_id)
    project = await session.get(CodeProject, wanted)
    if project is None or project.owner_user_id != viewer.id:
        raise NotFound(f"Project #{wanted} not found")
    return project


async def _files(session: AsyncSession, project_id: int) -> list[ProjectFile]:
    query = select(ProjectFile).where(ProjectFile.project_id == project_id).order_by(col(ProjectFile.id))
    return list(await session.exec(query))


async def public(session: AsyncSession, project: CodeProject) -> CodeProjectPublic:
    assert project.id is not None
    status, error = shown(project, await job_of(session, project))
    return CodeProjectPublic.of(project, await _files(session, project.id), status, error)


async def _refuse_while_building(session: AsyncSession, project: CodeProject, then: str) -> ProjectStatus:
    """The project's status as it reads; Conflict while a build of it runs."""
    job = await job_of(session, project)
    status, _ = shown(project, job)
    if working(job) and status in WORKING_STATUSES:
        raise Conflict(f"Project #{project.id} is still {status.value}: {then}")
    return status


async def _make_current(session: AsyncSession, owner_id: int, project: CodeProject | None) -> None:
    others = col(CodeProject.current_of) == owner_id
    if project is not None and project.id is not None:
        others = others & (col(CodeProject.id) != project.id)
    await session.exec(update(CodeProject).execution_options(synchronize_session=False).where(others).values(current_of=None))
    if project is not None:
        await session.flush()
        project.current_of = owner_id
        session.add(project)


async def _room_for_one_more(session: AsyncSession, owner_id: int) -> None:
    count = (await session.exec(select(func.count()).select_from(CodeProject).where(CodeProject.owner_user_id == owner_id))).one()
    if count >= MAX_PROJECTS:
        raise Invalid(f"You have {count} projects, the limit: clear some before starting another")


async def _start_job(session: AsyncSession, actor: UserPublic, project: CodeProject, prompt: str, mode: str) -> int:
    assert project.id is not None
    await storage.ensure_room(session, actor.id)
    try:
        job = await runner.enqueue(
            session,
            kind=KIND,
            owner_user_id=actor.id,
            owner_email=actor.email,
            singleton_key=f"{KIND}:{actor.id}",
            params={"projectId": project.id, "prompt": prompt, "mode": mode},
            progress={"phase": ProjectStatus.planning.value},
        )
    except store.ActiveJobExists:
        raise Conflict("A build is already running: wait for it to finish or stop it") from None
    assert job.id is not None
    project.job_id = job.id  # its status reads from the job now; the row keeps the last outcome until a new one
    session.add(project)
    return job.id


async def _launch(
    session: AsyncSession, actor: UserPublic, project: CodeProject, text: str, mode: str, line: str, action: str, description: str
) -> CodeProjectPublic:
    """Start the project's build job (a build or a continue), make it current, log and audit it, then run it."""
    job_id = await _start_job(session, actor, project, text, mode)
    await _make_current(session, actor.id, project)
    await add_log(session, project, f"{line}: {provisional_name(text)}")
    audit.record(
        session,
        category=LogCategory.ai,
        action=action,
        actor_user_id=actor.id,
        description=f"{actor.email} {description} project #{project.id}",
        details={"projectId": project.id, "jobId": job_id},
    )
    await commit(session)
    await session.refresh(project)
    return await public(session, project)


async def build(*, session: AsyncSession, actor: UserPublic, prompt: object) -> CodeProjectPublic:
    """A new project from a prompt, made the user's current one; its build job starts."""
    text = parse_prompt(prompt)
    await _room_for_one_more(session, actor.id)
    project = CodeProject(owner_user_id=actor.id, name=provisional_name(text), description=text[:500], prompt=text)
    session.add(project)
    await session.flush()
    return await _launch(
        session, actor, project, text, "build", "Build started", "Code project build started", "started building"
    )


async def continue_build(*, session: AsyncSession, actor: UserPublic, project_id: object, prompt: object) -> CodeProjectPublic:
    """Change an existing project (the current files go to the model as context); it becomes the current one."""
    text = parse_prompt(prompt)
    project = await owned(session, actor, project_id)
    await _refuse_while_building(session, project, "wait for it to finish")
    if not await _files(session, project.id or 0):
        raise Invalid(f"Project #{project.id} has no files yet: start a new build instead")
    return await _launch(session, actor, project, text, "continue", "Continue", "Code project continued", "asked for changes to")


async def save(*, session: AsyncSession, actor: UserPublic, project_id: object) -> CodeProjectPublic:
    """A named snapshot of the project as it is now (a copy that later changes leave alone)."""
    project = await owned(session, actor, project_id)
    status = await _refuse_while_building(session, project, "save it when the build is done")
    files = await _files(session, project.id or 0)
    if not files:
        raise Invalid(f"Project #{project.id} has no files to save yet")
    await _room_for_one_more(session, actor.id)
    await storage.ensure_room(session, actor.id, sum(len(row.content.encode()) for row in files))
    stamp = project.updated_at.strftime("%Y-%m-%d %H:%M")
    snapshot = CodeProject(
        owner_user_id=actor.id,
        snapshot_of=project.id,
        name=f"{project.name[:70]} (saved {stamp})",
        description=project.description,
        prompt=project.prompt,
        status=status,
        engine=project.engine,
        model=project.model,
        checks=dict(project.checks or {}),
    )
    session.add(snapshot)
    await session.flush()
    assert snapshot.id is not None
    for row in files:
        session.add(
            ProjectFile(
                project_id=snapshot.id,
                filename=row.filename,
                language=row.language,
                description=row.description,
                content=row.content,
                complete=row.complete,
            )
        )
    await add_log(session, project, f"Saved as project #{snapshot.id}: {snapshot.name}", BuildLogType.success)
    audit.record(
        session,
        category=LogCategory.ai,
        action="Code project saved",
        actor_user_id=actor.id,
        description=f"{actor.email} saved project #{project.id} as #{snapshot.id}",
        details={"projectId": project.id, "snapshotId": snapshot.id, "files": len(files)},
    )
    await commit(session)
    await session.refresh(snapshot)
    return await public(session, snapshot)


async def new_project(*, session: AsyncSession, actor: UserPublic) -> None:
    """No current project any more (the projects stay in the list)."""
    await _make_current(session, actor.id, None)
    mark_changed(session, topic_of(actor.id))
    await commit(session)


async def open_project(*, session: AsyncSession, actor: UserPublic, project_id: object) -> CodeProjectPublic:
    """Make one of the user's projects the current one."""
    project = await owned(session, actor, project_id)
    await _make_current(session, actor.id, project)
    mark_changed(session, topic_of(actor.id))
    await commit(session)
    await session.refresh(project)
    return await public(session, project)


async def clear_all(*, session: AsyncSession, actor: UserPublic) -> int:
    """Delete every project of the user (files, logs, directories); a running build is asked to stop first."""
    rows = list(await session.exec(select(CodeProject).where(CodeProject.owner_user_id == actor.id)))
    for project in rows:
        job = await job_of(session, project)
        if job is not None and working(job):
            store.request_stop(session, job)
    ids = [project.id for project in rows if project.id is not None]
    if ids:
        await session.exec(delete(JobLog).where(col(JobLog.job_id).in_(jobs_of(ids))))
        await session.exec(delete(ProjectFile).where(col(ProjectFile.project_id).in_(ids)))
        await session.exec(
            update(CodeProject)
            .execution_options(synchronize_session=False)
            .where(col(CodeProject.id).in_(ids))
            .values(snapshot_of=None, current_of=None)
        )
        await session.exec(delete(CodeProject).where(col(CodeProject.id).in_(ids)))
    audit.record(
        session,
        category=LogCategory.ai,
        action="Code projects cleared",
        actor_user_id=actor.id,
        description=f"{actor.email} deleted all {len(ids)} of their code projects",
        details={"count": len(ids)},
    )
    mark_changed(session, topic_of(actor.id))
    await commit(session)
    await asyncio.to_thread(project_dir.remove, *ids)
    return len(ids)


async def list_projects(*, session: AsyncSession, viewer: UserPublic) -> list[ProjectSummaryPublic]:
    """The user's projects and saved snapshots, newest first, without file contents: each with its number of files
    and of saved snapshots, and when it last changed."""
    counts = dict(
        (
            await session.exec(
                select(ProjectFile.project_id, func.count())
                .join(CodeProject, col(CodeProject.id) == ProjectFile.project_id)
                .where(CodeProject.owner_user_id == viewer.id)
                .group_by(col(ProjectFile.project_id))
            )
        ).all()
    )
    snapshots = dict(
        (
            await session.exec(
                select(CodeProject.snapshot_of, func.count())
                .where(CodeProject.owner_user_id == viewer.id, col(CodeProject.snapshot_of).is_not(None))
                .group_by(col(CodeProject.snapshot_of))
            )
        ).all()
    )
    rows = await session.exec(
        select(CodeProject, Job)
        .outerjoin(Job, col(Job.id) == CodeProject.job_id)
        .where(CodeProject.owner_user_id == viewer.id)
        .order_by(col(CodeProject.id).desc())
    )
    return [
        ProjectSummaryPublic(
            id=row.id,
            name=row.name,
            description=row.description,
            status=shown(row, job)[0],
            created_at=row.created_at,
            current=row.current_of is not None,
            snapshot_of=row.snapshot_of,
            file_count=counts.get(row.id or 0, 0),
            snapshot_count=snapshots.get(row.id, 0),
            updated_at=row.updated_at,
        )
        for row, job in rows
    ]


async def current(*, session: AsyncSession, viewer: UserPublic) -> CodeProjectPublic | None:
    row = (await session.exec(select(CodeProject).where(CodeProject.current_of == viewer.id))).first()
    return await public(session, row) if row is not None else None


async def get_project(*, session: AsyncSession, viewer: UserPublic, project_id: object) -> CodeProjectPublic:
    return await public(session, await owned(session, viewer, project_id))


async def logs(*, session: AsyncSession, viewer: UserPublic, project_id: object, after: object = None) -> list[BuildLogPublic]:
    """The project's log lines (its build jobs' lines) after id `after`, oldest first (a page at a time)."""
    project = await owned(session, viewer, project_id)
    assert project.id is not None
    query = (
        select(JobLog)
        .where(col(JobLog.job_id).in_(jobs_of([project.id])), col(JobLog.id) > parse_after(after))
        .order_by(col(JobLog.id))
        .limit(LOG_PAGE)
    )
    return [BuildLogPublic.of(row) for row in await session.exec(query)]


async def stop(*, session: AsyncSession, actor: UserPublic, project_id: object) -> CodeProjectPublic:
    """Ask the project's running build to stop (its job ends the build as failed: "Stopped")."""
    project = await owned(session, actor, project_id)
    job = await job_of(session, project)
    if job is None or not working(job) or not store.request_stop(session, job):
        raise Conflict(f"Project #{project.id} has no build running")
    await add_log(session, project, "Stop requested", BuildLogType.error)
    await commit(session)
    return await public(session, project)
