"""What the Fix Mode page shows, read in one short session: the open problems under the page's filters, the
sites to filter by, the newest fixes, the fix the page has open, and its job's progress and log from the last line
the page has seen. Every part is read through the Fix Mode and job services (their checks apply)."""

from __future__ import annotations

import dataclasses
from typing import Any

from secdash.core.db import session_scope
from secdash.models import UserPublic
from secdash.models.fixes_public import FixableProblemPublic, FixPublic
from secdash.models.jobs_public import JobLogPublic
from secdash.services import jobs
from secdash.services.errors import NotFound
from secdash.services.fix import fixes, problems
from secdash.services.monitoring import sites

RECENT_FIXES = 20
LOG_LINES_PER_READ = 200


@dataclasses.dataclass(frozen=True)
class FixModeRead:
    problems: list[FixableProblemPublic]
    sites: list[tuple[int, str]]  # (id, name) of every site, for the site filter
    recent: list[FixPublic]  # the newest fixes, any status (a verified fix's problem has left the list)
    fix: FixPublic | None  # the fix the page has open (None: none, or it no longer exists)
    job_status: str  # the open fix's job: queued, running, done, failed, ... ("" without a job)
    progress: dict[str, Any]  # the job's progress ({"phase": ..., "percent": ...})
    log_job: int  # the job whose lines `log` holds (0: none)
    log: list[JobLogPublic]


async def read_fix_mode(
    *,
    viewer: UserPublic,
    site_id: int | None = None,
    severity: str | None = None,
    kind: str | None = None,
    fix_id: int = 0,
    log_job: int = 0,
    log_after: int = 0,
) -> FixModeRead:
    """Everything the page shows. Invalid (bad severity or kind) before anything is read. `log_job`/`log_after`:
    the job log the page holds and its last line; the open fix's current job is read after it (from its start
    when it is another job)."""
    async with session_scope() as session:
        listed = await problems.list_problems(session=session, viewer=viewer, site_id=site_id, severity=severity, kind=kind)
        site_options = [(site.id, site.name) for site in await sites.list_sites(session=session) if site.id]
        recent = await fixes.list_fixes(session=session, viewer=viewer, limit=RECENT_FIXES)
        fix = None
        if fix_id:
            try:
                fix = await fixes.get_fix(session=session, viewer=viewer, fix_id=fix_id)
            except NotFound:
                fix = None
        job_status, progress, job_id, lines = "", {}, 0, []
        if fix is not None and fix.job_id:
            try:
                job = await jobs.get_job(session=session, viewer=viewer, job_id=fix.job_id)
                job_id = fix.job_id
                job_status, progress = str(job.status), dict(job.progress or {})
                after = log_after if job_id == log_job else 0
                rows = await jobs.job_log(session=session, viewer=viewer, job_id=job_id, after=after)
                lines = [JobLogPublic.of(row) for row in rows[:LOG_LINES_PER_READ]]
            except NotFound:
                job_id = 0
    return FixModeRead(
        problems=listed,
        sites=site_options,
        recent=recent,
        fix=fix,
        job_status=job_status,
        progress=progress,
        log_job=job_id,
        log=lines,
    )
