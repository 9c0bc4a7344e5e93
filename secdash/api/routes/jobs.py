"""Jobs and the Security Scan: GET /api/jobs/{id}, its log from a sequence on, stop; start/stop/read the scan
(under /api/security-scan and, for scripts, /api/scans).

Any worker answers for any job: the job is stored, and a stop is a flag the running handler reads.
"""

from __future__ import annotations

from typing import Annotated, Literal

from fastapi import APIRouter, Query, Response

from secdash.api.deps import AppSettings, CurrentUser, DbSession
from secdash.api.schemas import MAX_CURSOR, SIGNED_IN_ERRORS, PathId, RequestBody, errors, integer_text
from secdash.jobs import runner
from secdash.models.jobs_public import JobLogPublic, JobPublic, ScanPublic
from secdash.services import jobs
from secdash.services.errors import NotFound
from secdash.services.scanning import scans

router = APIRouter(prefix="/api", tags=["jobs"], responses=SIGNED_IN_ERRORS)
After = Annotated[
    str | None, Query(max_length=12, description="The last log sequence number already seen"), integer_text(0, MAX_CURSOR)
]


class ScanIn(RequestBody):
    scanType: Literal["quick", "full"]  # noqa: N815


def _served_by(response: Response, settings) -> None:
    if settings.SERVED_BY_HEADER:
        response.headers["X-Served-By"] = runner.worker_id()


@router.get("/jobs/{job_id}", response_model=JobPublic, responses=errors(404))
async def read_job(job_id: PathId, user: CurrentUser, session: DbSession, response: Response, settings: AppSettings) -> JobPublic:
    _served_by(response, settings)
    return JobPublic.of(await jobs.get_job(session=session, viewer=user, job_id=job_id))


@router.get("/jobs/{job_id}/logs", response_model=list[JobLogPublic], responses=errors(404))
async def read_job_log(job_id: PathId, user: CurrentUser, session: DbSession, after: After = None) -> list[JobLogPublic]:
    """Log lines after `after`, oldest first (at most 500: ask again from the last one)."""
    lines = await jobs.job_log(session=session, viewer=user, job_id=job_id, after=jobs.parse_after(after))
    return [JobLogPublic.of(line) for line in lines]


@router.post("/jobs/{job_id}/stop", response_model=JobPublic, responses=errors(403, 404, 409))
async def stop_job(job_id: PathId, user: CurrentUser, session: DbSession, response: Response, settings: AppSettings) -> JobPublic:
    _served_by(response, settings)
    return JobPublic.of(await jobs.stop_job(session=session, actor=user, job_id=job_id))


def _scan(view) -> ScanPublic:
    return ScanPublic.of(view, agents=scans.agents_scanning(view))


@router.get("/security-scan", response_model=ScanPublic, responses=errors(404))
async def read_scan(user: CurrentUser, session: DbSession) -> ScanPublic:
    """The newest scan."""
    view = await scans.current_job(session=session)
    if view is None:
        raise NotFound("No scan has run yet")
    return _scan(view)


@router.post("/security-scan/start", status_code=202, response_model=ScanPublic, responses=errors(403, 409))
async def start_scan(body: ScanIn, user: CurrentUser, session: DbSession) -> ScanPublic:
    """Start a quick or full scan (admins; one at a time): it runs on whichever worker takes the job."""
    return _scan(await scans.start_scan(session=session, actor=user, scan_type=body.scanType))


@router.post("/security-scan/stop", response_model=ScanPublic, responses=errors(403, 404))
async def stop_scan(user: CurrentUser, session: DbSession) -> ScanPublic:
    return _scan(await scans.stop_scan(session=session, actor=user))


# The Security Scan for scripts (issue 11's names): the same services as /api/security-scan.
@router.post("/scans", status_code=202, response_model=ScanPublic, responses=errors(403, 409))
async def start_scan_job(body: ScanIn, user: CurrentUser, session: DbSession) -> ScanPublic:
    """Start a quick or full scan (admins); 409 while one runs."""
    return _scan(await scans.start_scan(session=session, actor=user, scan_type=body.scanType))


@router.get("/scans/current", response_model=ScanPublic, responses=errors(404))
async def read_current_scan(user: CurrentUser, session: DbSession) -> ScanPublic:
    """The newest scan (running or finished)."""
    return await read_scan(user, session)


@router.post("/scans/current/stop", response_model=ScanPublic, responses=errors(403, 404))
async def stop_current_scan(user: CurrentUser, session: DbSession) -> ScanPublic:
    """Ask the running scan to stop (admins); 404 when none runs."""
    return _scan(await scans.stop_scan(session=session, actor=user))
