"""What the builder's request side and its job share: the job kind, the change topic, the log lines, and how a
project reads (working or not is its newest job's state; the row keeps only the outcome)."""

from __future__ import annotations

from typing import Any

from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from secdash.jobs import store
from secdash.models.builder import WORKING_STATUSES, BuildLogType, CodeProject, ProjectFile, ProjectStatus
from secdash.models.jobs import ACTIVE_STATUSES, Job, JobLevel, JobStatus
from secdash.services.builder.limits import MAX_LOG_CHARS

KIND = "build"
# A job that ended with its worker (the server stopped, the worker vanished): the reaper or the runner says so.
INTERRUPTED = "The build was interrupted (the server stopped during it): run it again"
CRASHED = "The build failed on the server (see the server log)"
TOPIC = "builder"  # every build job's row and log (the job system's area topic)


def topic_of(user_id: int) -> str:
    """The change topic of one user's projects (rows, files as they stream, log lines, their build jobs)."""
    return f"builder:{user_id}"


def jobs_of(project_ids: list[int]) -> Any:
    """The ids of the build jobs of these projects (a subquery): a project's log is the log of its jobs."""
    project_of = col(Job.params)["projectId"].as_integer()
    return select(Job.id).where(Job.kind == KIND, project_of.in_(project_ids))


async def add_log(session: AsyncSession, project: CodeProject, message: str, kind: BuildLogType = BuildLogType.info) -> None:
    """A line of the project's build log, written with the caller's commit: the log of its newest job (none
    without a job)."""
    if project.job_id is not None:
        await store.add_log(session, project.job_id, message, JobLevel(kind.value), max_chars=MAX_LOG_CHARS)


async def job_of(session: AsyncSession, project: CodeProject) -> Job | None:
    """The project's newest build job (None: never built, or the job is gone)."""
    return await session.get(Job, project.job_id) if project.job_id is not None else None


def working(job: Job | None) -> bool:
    """A build or continue runs: the project's newest job is queued or running."""
    return job is not None and job.status in ACTIVE_STATUSES


def shown(project: CodeProject, job: Job | None) -> tuple[ProjectStatus, str | None]:
    """(status, error) as readers see them: the job's phase while it works; else the row's outcome, or failed when
    the job ended without one (the worker died or the job crashed before it could say so)."""
    if working(job):
        assert job is not None
        phase = (job.progress or {}).get("phase")
        if phase in WORKING_STATUSES:
            return ProjectStatus(phase), None
        if project.status not in WORKING_STATUSES:  # the job is closing: it wrote its outcome
            return project.status, project.error
        return ProjectStatus.planning, None
    if job is not None and job.status == JobStatus.interrupted:
        return ProjectStatus.failed, INTERRUPTED
    if job is not None and job.status == JobStatus.failed:  # a crash (the handler closes the outcomes it knows)
        return ProjectStatus.failed, CRASHED
    if project.status in WORKING_STATUSES:  # no outcome: its job was stopped before it ran, or is gone
        return ProjectStatus.failed, INTERRUPTED
    return project.status, project.error


async def file_of(session: AsyncSession, project_id: int, path: str) -> ProjectFile | None:
    """One file of a project by its path (None when the project has no such file)."""
    query = select(ProjectFile).where(ProjectFile.project_id == project_id, ProjectFile.filename == path)
    return (await session.exec(query)).first()
