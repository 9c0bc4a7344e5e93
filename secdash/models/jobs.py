"""Jobs: every long piece of work (scans now; drills, fixes, builds, artifacts later) and its ordered log."""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum
from typing import Any

from sqlalchemy import JSON, Column, Index, Text, UniqueConstraint, text
from sqlmodel import Field, SQLModel

from secdash.models.base import _enum, _ts, utcnow


class JobStatus(StrEnum):
    queued = "queued"
    running = "running"
    stopping = "stopping"  # a stop was asked for; the handler ends at its next check
    done = "done"
    stopped = "stopped"  # ended on a stop request, keeping what it did
    failed = "failed"
    interrupted = "interrupted"  # its worker went silent (died or was killed)


ACTIVE_STATUSES = (JobStatus.queued, JobStatus.running, JobStatus.stopping)
FINISHED_STATUSES = (JobStatus.done, JobStatus.stopped, JobStatus.failed, JobStatus.interrupted)
_ACTIVE_SQL = "status IN ('queued', 'running', 'stopping')"


class JobLevel(StrEnum):
    info = "info"
    success = "success"
    warning = "warning"
    error = "error"
    code = "code"  # a block of code (the Live Code Builder's diffs), shown monospace


class Job(SQLModel, table=True):
    """A stored job: any worker's page can show, follow and stop it."""

    __tablename__ = "jobs"
    __table_args__ = (
        # "Only one at a time" rules (one scan) are held by the database: at most one active job per key.
        Index(
            "uq_jobs_one_active_per_key",
            "singleton_key",
            unique=True,
            sqlite_where=text(_ACTIVE_SQL),
            postgresql_where=text(_ACTIVE_SQL),
        ),
        Index("ix_jobs_kind_created", "kind", "created_at"),
        Index("ix_jobs_status_heartbeat", "status", "heartbeat_at"),
    )

    id: int | None = Field(default=None, primary_key=True)
    kind: str = Field(max_length=24)
    status: JobStatus = _enum(JobStatus, name="ck_jobs_status", length=12, default=JobStatus.queued)
    params: dict[str, Any] = Field(default_factory=dict, sa_column=Column("params", JSON))
    progress: dict[str, Any] = Field(default_factory=dict, sa_column=Column("progress", JSON))
    result: dict[str, Any] = Field(default_factory=dict, sa_column=Column("result", JSON))
    error: str | None = Field(default=None, max_length=500)
    owner_user_id: int | None = Field(default=None, foreign_key="users.id", ondelete="SET NULL", index=True)
    owner_email: str = Field(default="", max_length=254)
    singleton_key: str | None = Field(default=None, max_length=64)
    stop_requested: bool = False
    worker: str = Field(default="", max_length=64)  # which process runs it
    attempts: int = 0
    log_seq: int = 0  # the newest log line's sequence number
    created_at: datetime = _ts(default_factory=utcnow)
    started_at: datetime | None = _ts(default=None, nullable=True)
    finished_at: datetime | None = _ts(default=None, nullable=True)
    # Written while the job runs; a running job whose heartbeat stops was interrupted.
    heartbeat_at: datetime = _ts(default_factory=utcnow)


class JobLog(SQLModel, table=True):
    """One line of a job's log; `seq` orders a job's lines, so a page reads only the lines it has not seen."""

    __tablename__ = "job_logs"
    __table_args__ = (UniqueConstraint("job_id", "seq", name="uq_job_logs_job_seq"),)

    id: int | None = Field(default=None, primary_key=True)
    job_id: int = Field(foreign_key="jobs.id", ondelete="CASCADE")
    seq: int
    level: JobLevel = _enum(JobLevel, name="ck_job_logs_level", length=8, default=JobLevel.info)
    message: str = Field(sa_type=Text)  # type: ignore[call-overload]  # bounded by the writer (jobs/store.py MESSAGE_MAX)
    created_at: datetime = _ts(default_factory=utcnow)
