"""The Security Scan: its code roots, and the scan as its pages see it (a job of kind "scan" read as scan figures)."""

from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel
from sqlmodel import Field, SQLModel

from secdash.models.base import _ts, as_utc, utcnow
from secdash.models.jobs import Job, JobStatus

# The scan's own words for the job states (what the Security Scan tab and its tests have always used).
SCAN_STATUS = {
    JobStatus.queued: "running",
    JobStatus.running: "running",
    JobStatus.stopping: "running",
    JobStatus.done: "complete",
    JobStatus.stopped: "stopped",
    JobStatus.failed: "failed",
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

    def agents_scanning(self, engines: dict[str, tuple[str, ...]]) -> int:
        """How many scan engines are at work: those of its type while it runs, none otherwise."""
        return len(engines.get(self.scan_type, ())) if self.status == "running" else 0

    @classmethod
    def from_job(cls, job: Job) -> ScanView:
        assert job.id is not None
        progress = job.progress or {}
        return cls(
            id=job.id,
            scan_type=(job.params or {}).get("scanType", "quick"),
            status=SCAN_STATUS[JobStatus(job.status)],
            job_status=job.status,
            started_at=as_utc(job.started_at or job.created_at),
            finished_at=as_utc(job.finished_at) if job.finished_at else None,
            started_by=job.owner_email,
            total_files=progress.get("totalFiles", 0),
            total_lines=progress.get("totalLines", 0),
            files_scanned=progress.get("filesScanned", 0),
            lines_scanned=progress.get("linesScanned", 0),
            current_file=progress.get("currentFile", ""),
            threats_found=progress.get("threatsFound", 0),
            vulnerabilities=progress.get("vulnerabilities", 0),
            stop_requested=job.stop_requested,
            error=job.error,
            worker=job.worker,
        )


class CodeRoot(SQLModel, table=True):
    """A folder of code the Security Scan reads, and the site it belongs to (findings there are that site's)."""

    __tablename__ = "code_roots"

    id: int | None = Field(default=None, primary_key=True)
    path: str = Field(max_length=1000, unique=True)
    site_id: int | None = Field(default=None, foreign_key="sites.id", ondelete="SET NULL", index=True)
    created_at: datetime = _ts(default_factory=utcnow)
