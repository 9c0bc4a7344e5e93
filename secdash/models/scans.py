"""Code scan jobs."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Index, text
from sqlmodel import Field, SQLModel

from secdash.models.base import _ts, utcnow


class ScanJob(SQLModel, table=True):
    """A code scan run in the background; progress is written as it goes."""

    __tablename__ = "scan_jobs"
    # At most one running scan, held by the database: a partial unique index over the running rows.
    __table_args__ = (
        Index(
            "uq_scan_jobs_one_running", "status", unique=True,
            sqlite_where=text("status = 'running'"), postgresql_where=text("status = 'running'"),
        ),
    )

    id: int | None = Field(default=None, primary_key=True)
    scan_type: str = Field(max_length=8)  # quick | full
    status: str = Field(default="running", max_length=12)  # running | complete | stopped | failed
    started_at: datetime = _ts(default_factory=utcnow)
    finished_at: datetime | None = _ts(default=None, nullable=True)
    started_by: str = Field(default="", max_length=254)
    total_files: int = 0
    total_lines: int = 0
    files_scanned: int = 0
    lines_scanned: int = 0
    current_file: str = Field(default="", max_length=500)
    threats_found: int = 0
    vulnerabilities: int = 0
    stop_requested: bool = False
    # Written with every progress update; a running job whose heartbeat stops was interrupted.
    heartbeat_at: datetime = _ts(default_factory=utcnow)
    error: str | None = Field(default=None, max_length=500)
