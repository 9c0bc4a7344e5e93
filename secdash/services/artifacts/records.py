"""What the artifacts' request side and their job share: the job kind, the change topics, and how an artifact
reads (generating or not is its newest job's state; the row keeps only the outcome)."""

from __future__ import annotations

from sqlmodel.ext.asyncio.session import AsyncSession

from secdash.models.artifacts import Artifact, ArtifactStatus
from secdash.models.jobs import ACTIVE_STATUSES, Job, JobStatus

KIND = "artifact"
# A job that ended with its worker (the server stopped, the worker vanished): the reaper or the runner says so.
INTERRUPTED = "The generation was interrupted (the server stopped during it): run it again"
CRASHED = "The generation failed on the server (see the server log)"
TOPIC = "artifacts"  # every artifact job's row and log (the job system's area topic)


def topic_of(user_id: int) -> str:
    """The change topic of one user's artifacts (rows, the draft as it streams, new versions, their jobs)."""
    return f"artifacts:{user_id}"


async def job_of(session: AsyncSession, artifact: Artifact) -> Job | None:
    """The artifact's newest generation job (None: it has none, or the job is gone)."""
    return await session.get(Job, artifact.job_id) if artifact.job_id is not None else None


def working(job: Job | None) -> bool:
    """A generation runs: the artifact's newest job is queued or running."""
    return job is not None and job.status in ACTIVE_STATUSES


def shown(artifact: Artifact, job: Job | None) -> tuple[ArtifactStatus, str | None]:
    """(status, error) as readers see them: generating while its job works; else the row's outcome, or failed when
    the job ended without one (the worker died or the job crashed before it could say so)."""
    if working(job):
        return ArtifactStatus.generating, None
    if job is not None and job.status == JobStatus.interrupted:
        return ArtifactStatus.failed, INTERRUPTED
    if job is not None and job.status == JobStatus.failed:  # a crash (the handler closes the outcomes it knows)
        return ArtifactStatus.failed, CRASHED
    if artifact.status == ArtifactStatus.generating:  # no outcome: its job was stopped before it ran, or is gone
        return ArtifactStatus.failed, INTERRUPTED
    return artifact.status, artifact.error
