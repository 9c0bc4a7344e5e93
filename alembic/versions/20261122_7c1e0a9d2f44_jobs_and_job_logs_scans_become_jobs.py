"""jobs and job logs: one job system; code scans become jobs of kind "scan" (scan_jobs is folded in and dropped)

Every scan_jobs row becomes a job (status complete -> done; running -> running with the "scan" singleton key,
so the one-active-scan rule carries over; the rest as they were), its counters becoming the job's progress.

Revision ID: 7c1e0a9d2f44
Revises: 5b8c73155b9c
Create Date: 2026-11-22

"""
from collections.abc import Sequence

import sqlalchemy as sa

from alembic import op

revision: str = '7c1e0a9d2f44'
down_revision: str | Sequence[str] | None = '5b8c73155b9c'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

ACTIVE = sa.text("status IN ('queued', 'running', 'stopping')")
TS = sa.DateTime(timezone=True)
STATUS = {"complete": "done", "running": "running", "stopped": "stopped", "failed": "failed"}


def upgrade() -> None:
    op.create_table(
        "jobs",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("kind", sa.String(length=24), nullable=False),
        sa.Column("status", sa.String(length=12), nullable=False),
        sa.Column("params", sa.JSON(), nullable=True),
        sa.Column("progress", sa.JSON(), nullable=True),
        sa.Column("result", sa.JSON(), nullable=True),
        sa.Column("error", sa.String(length=500), nullable=True),
        sa.Column("owner_user_id", sa.Integer(), nullable=True),
        sa.Column("owner_email", sa.String(length=254), nullable=False),
        sa.Column("singleton_key", sa.String(length=64), nullable=True),
        sa.Column("stop_requested", sa.Boolean(), nullable=False),
        sa.Column("worker", sa.String(length=64), nullable=False),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("log_seq", sa.Integer(), nullable=False),
        sa.Column("created_at", TS, nullable=False),
        sa.Column("started_at", TS, nullable=True),
        sa.Column("finished_at", TS, nullable=True),
        sa.Column("heartbeat_at", TS, nullable=False),
        sa.ForeignKeyConstraint(["owner_user_id"], ["users.id"], ondelete="SET NULL"),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_jobs_owner_user_id", "jobs", ["owner_user_id"])
    op.create_index("ix_jobs_kind_created", "jobs", ["kind", "created_at"])
    op.create_index("ix_jobs_status_heartbeat", "jobs", ["status", "heartbeat_at"])
    op.create_index("uq_jobs_one_active_per_key", "jobs", ["singleton_key"], unique=True,
                    sqlite_where=ACTIVE, postgresql_where=ACTIVE)
    op.create_table(
        "job_logs",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("job_id", sa.Integer(), nullable=False),
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.Column("level", sa.String(length=8), nullable=False),
        sa.Column("message", sa.String(length=1000), nullable=False),
        sa.Column("created_at", TS, nullable=False),
        sa.ForeignKeyConstraint(["job_id"], ["jobs.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("job_id", "seq", name="uq_job_logs_job_seq"),
    )

    bind = op.get_bind()
    old = sa.table(
        "scan_jobs", *(sa.column(name) for name in (
            "id", "scan_type", "status", "started_at", "finished_at", "started_by", "total_files", "total_lines",
            "files_scanned", "lines_scanned", "current_file", "threats_found", "vulnerabilities", "stop_requested",
            "heartbeat_at", "error")),
    )
    rows = []
    for row in bind.execute(sa.select(old).order_by(old.c.id)).mappings():
        status = STATUS.get(row["status"], "failed")
        rows.append({
            "id": row["id"], "kind": "scan", "status": status, "params": {"scanType": row["scan_type"]},
            "progress": {
                "totalFiles": row["total_files"], "totalLines": row["total_lines"], "filesScanned": row["files_scanned"],
                "linesScanned": row["lines_scanned"], "currentFile": row["current_file"] or "",
                "threatsFound": row["threats_found"], "vulnerabilities": row["vulnerabilities"],
            },
            "result": {}, "error": row["error"], "owner_user_id": None, "owner_email": row["started_by"] or "",
            "singleton_key": "scan" if status == "running" else None, "stop_requested": bool(row["stop_requested"]),
            "worker": "", "attempts": 1, "log_seq": 0, "created_at": row["started_at"], "started_at": row["started_at"],
            "finished_at": row["finished_at"], "heartbeat_at": row["heartbeat_at"],
        })
    if rows:
        # Timestamps are copied as the database returned them (SQLite keeps text): no column type to convert them.
        copy = sa.table("jobs", *(sa.column(name, sa.JSON if name in ("params", "progress", "result") else None)
                                  for name in rows[0]))
        bind.execute(copy.insert(), rows)
        if bind.dialect.name == "postgresql":
            bind.execute(sa.text("SELECT setval(pg_get_serial_sequence('jobs', 'id'), (SELECT MAX(id) FROM jobs))"))
    op.drop_index("uq_scan_jobs_one_running", table_name="scan_jobs")
    op.drop_table("scan_jobs")


def downgrade() -> None:
    op.create_table(
        "scan_jobs",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("scan_type", sa.String(length=8), nullable=False),
        sa.Column("status", sa.String(length=12), nullable=False),
        sa.Column("started_at", TS, nullable=False),
        sa.Column("finished_at", TS, nullable=True),
        sa.Column("started_by", sa.String(length=254), nullable=False),
        sa.Column("total_files", sa.Integer(), nullable=False),
        sa.Column("total_lines", sa.Integer(), nullable=False),
        sa.Column("files_scanned", sa.Integer(), nullable=False),
        sa.Column("lines_scanned", sa.Integer(), nullable=False),
        sa.Column("current_file", sa.String(length=500), nullable=False),
        sa.Column("threats_found", sa.Integer(), nullable=False),
        sa.Column("vulnerabilities", sa.Integer(), nullable=False),
        sa.Column("stop_requested", sa.Boolean(), nullable=False),
        sa.Column("heartbeat_at", TS, nullable=False),
        sa.Column("error", sa.String(length=500), nullable=True),
        sa.PrimaryKeyConstraint("id"),
    )
    running = sa.text("status = 'running'")
    op.create_index("uq_scan_jobs_one_running", "scan_jobs", ["status"], unique=True,
                    sqlite_where=running, postgresql_where=running)
    op.drop_table("job_logs")
    op.drop_index("uq_jobs_one_active_per_key", table_name="jobs")
    op.drop_index("ix_jobs_status_heartbeat", table_name="jobs")
    op.drop_index("ix_jobs_kind_created", table_name="jobs")
    op.drop_index("ix_jobs_owner_user_id", table_name="jobs")
    op.drop_table("jobs")
