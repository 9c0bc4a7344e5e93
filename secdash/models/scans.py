"""The Security Scan as its pages see it: a job of kind "scan" (models/jobs.py) read as scan figures."""

from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel

from secdash.models.base import as_utc
from secdash.models.jobs import Job, JobStatus

# The scan's own words for the job states (what the Security Scan tab and its tests have always used).
SCAN_STATUS = {
    JobStatus.queued: "running", JobStatus.running: "running", JobStatus.stopping: "running",
    JobStatus.done: "complete", JobStatus.stopped: "stopped", JobStatus.failed: "failed",
    JobStatus.interrupted: "failed",
}


class ScanView(BaseModel):
    id: int
    scan_type: str
    status: str  # running | complete | stopped | failed
    job_status: str  # the job's own state (queued, running, stopping, done, stopped, failed, interrupted)
    started_at: datetime
    finished_at: datetime | None = None
    started_by: str = ""
    total_files: int = 0
    total_lines: int = 0
    files_scanned: int = 0
    lines_scanned: int = 0
    current_file: str = ""
    threats_found: int = 0
    vulnerabilities: int = 0
    stop_requested: bool = False
    error: str | None = None
    worker: str = ""

    @classmethod
    def from_job(cls, job: Job) -> ScanView:
        assert job.id is not None
        progress = job.progress or {}
        return cls(
            id=job.id, scan_type=(job.params or {}).get("scanType", "quick"), status=SCAN_STATUS[JobStatus(job.status)],
            job_status=job.status, started_at=as_utc(job.started_at or job.created_at),
            finished_at=as_utc(job.finished_at) if job.finished_at else None, started_by=job.owner_email,
            total_files=progress.get("totalFiles", 0), total_lines=progress.get("totalLines", 0),
            files_scanned=progress.get("filesScanned", 0), lines_scanned=progress.get("linesScanned", 0),
            current_file=progress.get("currentFile", ""), threats_found=progress.get("threatsFound", 0),
            vulnerabilities=progress.get("vulnerabilities", 0), stop_requested=job.stop_requested, error=job.error,
            worker=job.worker,
        )
