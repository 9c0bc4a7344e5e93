"""job status and job log level hold only their enum's values: a CHECK on each (models/jobs.py)

Revision ID: 9a4e6b2c1d83
Revises: f1a8c3e5d7b9
Create Date: 2026-11-22

"""
from collections.abc import Sequence

import sqlalchemy as sa

from alembic import op

revision: str = '9a4e6b2c1d83'
down_revision: str | Sequence[str] | None = 'f1a8c3e5d7b9'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

STATUSES = ("queued", "running", "stopping", "done", "stopped", "failed", "interrupted")
LEVELS = ("info", "success", "warning", "error")
ACTIVE = sa.text("status IN ('queued', 'running', 'stopping')")


def _condition(column: str, values: tuple[str, ...]) -> str:
    return f"{column} IN ({', '.join(repr(value) for value in values)})"


def upgrade() -> None:
    bind = op.get_bind()
    jobs = sa.table("jobs", sa.column("status", sa.String))
    bind.execute(jobs.update().where(jobs.c.status.not_in(STATUSES)).values(status="failed"))
    logs = sa.table("job_logs", sa.column("level", sa.String))
    bind.execute(logs.update().where(logs.c.level.not_in(LEVELS)).values(level="info"))
    # SQLite rebuilds the table for a CHECK: the partial unique index is made again explicitly, WHERE and all.
    op.drop_index("uq_jobs_one_active_per_key", table_name="jobs")
    with op.batch_alter_table("jobs") as batch:
        batch.create_check_constraint("ck_jobs_status", _condition("status", STATUSES))
    op.create_index("uq_jobs_one_active_per_key", "jobs", ["singleton_key"], unique=True,
                    sqlite_where=ACTIVE, postgresql_where=ACTIVE)
    with op.batch_alter_table("job_logs") as batch:
        batch.create_check_constraint("ck_job_logs_level", _condition("level", LEVELS))


def downgrade() -> None:
    with op.batch_alter_table("job_logs") as batch:
        batch.drop_constraint("ck_job_logs_level", type_="check")
    op.drop_index("uq_jobs_one_active_per_key", table_name="jobs")
    with op.batch_alter_table("jobs") as batch:
        batch.drop_constraint("ck_jobs_status", type_="check")
    op.create_index("uq_jobs_one_active_per_key", "jobs", ["singleton_key"], unique=True,
                    sqlite_where=ACTIVE, postgresql_where=ACTIVE)
