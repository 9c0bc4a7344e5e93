"""Public shapes of jobs, their log lines and the Security Scan (camelCase on the wire)."""

from __future__ import annotations

from typing import Any

from secdash.models.jobs import Job, JobLevel, JobLog, JobStatus
from secdash.models.public import PublicModel, UtcDateTime
from secdash.models.scans import ScanView


class JobPublic(PublicModel):
    id: int
    kind: str
    status: JobStatus
    params: dict[str, Any]
    progress: dict[str, Any]
    result: dict[str, Any]
    error: str | None
    owner: str
    stop_requested: bool
    worker: str  # the process that runs or ran it
    log_seq: int  # the newest log line: read /logs?after=<the last one seen>
    created_at: UtcDateTime
    started_at: UtcDateTime | None
    finished_at: UtcDateTime | None

    @classmethod
    def of(cls, job: Job) -> JobPublic:
        assert job.id is not None
        return cls(
            id=job.id,
            kind=job.kind,
            status=JobStatus(job.status),
            params=job.params or {},
            progress=job.progress or {},
            result=job.result or {},
            error=job.error,
            owner=job.owner_email,
            stop_requested=job.stop_requested,
            worker=job.worker,
            log_seq=job.log_seq,
            created_at=job.created_at,
            started_at=job.started_at,
            finished_at=job.finished_at,
        )


class JobLogPublic(PublicModel):
    seq: int
    level: JobLevel
    message: str
    created_at: UtcDateTime

    @classmethod
    def of(cls, line: JobLog) -> JobLogPublic:
        return cls(seq=line.seq, level=JobLevel(line.level), message=line.message, created_at=line.created_at)


class ScanPublic(PublicModel):
    """The Security Scan's state (spec: scan state), with the job behind it."""

    job_id: int
    scan_type: str
    status: str  # running | complete | stopped | failed
    job_status: JobStatus
    lines_scanned: int
    total_lines: int
    files_scanned: int
    total_files: int
    current_file: str
    threats_found: int
    vulnerabilities: int
    agents_scanning: int
    started_by: str
    started_at: UtcDateTime
    finished_at: UtcDateTime | None
    error: str | None
    worker: str

    @classmethod
    def of(cls, scan: ScanView, agents: int) -> ScanPublic:
        return cls(
            job_id=scan.id,
            scan_type=scan.scan_type,
            status=scan.status,
            job_status=JobStatus(scan.job_status),
            lines_scanned=scan.lines_scanned,
            total_lines=scan.total_lines,
            files_scanned=scan.files_scanned,
            total_files=scan.total_files,
            current_file=scan.current_file,
            threats_found=scan.threats_found,
            vulnerabilities=scan.vulnerabilities,
            agents_scanning=agents,
            started_by=scan.started_by,
            started_at=scan.started_at,
            finished_at=scan.finished_at,
            error=scan.error,
            worker=scan.worker,
        )
