"""Jobs as users see them: read one, read its log from a sequence number on, stop it (permission-checked).

Who sees a job: a shared kind (a scan, a drill, a fix on shared code) every signed-in user; private work (a build,
an artifact generation, a fix on a private project: services/private_work.py) its owner only, administrators
included; any other job (an alert delivery) its owner and administrators."""

from __future__ import annotations

from sqlmodel.ext.asyncio.session import AsyncSession

from secdash.core.unit import commit
from secdash.jobs import registry, store
from secdash.models import LogCategory, LogSeverity, Role, UserPublic
from secdash.models.jobs import Job, JobLog
from secdash.services import audit, ids, private_work
from secdash.services.errors import Conflict, Invalid, NotFound, PermissionDenied
from secdash.services.identity.permissions import require_admin

MAX_LOG_PAGE = 500


def _kind(job: Job) -> registry.JobKind | None:
    try:
        return registry.kind(job.kind)
    except LookupError:
        return None


def _may_read(viewer: UserPublic, job: Job) -> bool:
    kind = _kind(job)
    if private_work.is_private_job(job.kind, job.params):
        return private_work.owns(viewer, job.owner_user_id)
    return viewer.role == Role.admin or job.owner_user_id == viewer.id or bool(kind and kind.shared)


async def get_job(*, session: AsyncSession, viewer: UserPublic, job_id: int) -> Job:
    """A job its viewer may see (see the module's docstring).

    Someone else's private job is reported as missing, not as forbidden, so ids reveal nothing."""
    job = await store.get(session, job_id)
    if job is None or not _may_read(viewer, job):
        raise NotFound("Job not found")
    return job


def parse_after(value: str | None) -> int:
    if value in (None, ""):
        return 0
    if not ids.is_digits(value):
        raise Invalid("after must be a log sequence number (0 or more)")
    return int(value)


async def job_log(*, session: AsyncSession, viewer: UserPublic, job_id: int, after: int = 0) -> list[JobLog]:
    """The job's log lines after sequence `after`, oldest first (a page at a time)."""
    await get_job(session=session, viewer=viewer, job_id=job_id)
    return await store.logs_since(session, job_id, after, MAX_LOG_PAGE)


async def stop_job(*, session: AsyncSession, actor: UserPublic, job_id: int) -> Job:
    """Ask a job to stop, from any worker: its owner or an admin (admins only for shared kinds such as scans; private
    work: its owner only, as `get_job` already decided)."""
    job = await get_job(session=session, viewer=actor, job_id=job_id)
    kind = _kind(job)
    if kind is not None and kind.shared:
        require_admin(actor, f"stop {job.kind} jobs")
    elif actor.role != Role.admin and job.owner_user_id != actor.id:
        raise PermissionDenied("Only the job's owner or an administrator may stop it")
    if not store.request_stop(session, job):
        raise Conflict(f"Job #{job.id} has already finished ({job.status})")
    audit.record(
        session,
        category=LogCategory.system,
        action="Job stop requested",
        severity=LogSeverity.warning,
        actor_user_id=actor.id,
        description=f"{actor.email} stopped {job.kind} job #{job.id}",
        details={"jobId": job.id, "kind": job.kind},
    )
    await commit(session)
    return job
