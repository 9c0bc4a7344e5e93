"""build_logs become job logs: a build's lines are its job's log (one log per job)

job_logs.message becomes TEXT (a builder line holds up to 4000 characters: a diff) and job_logs.level may be
`code` (a builder diff, shown monospace). Each project's lines are copied to the log of its newest build job
(lines of a project without a job are dropped), then build_logs goes.

Downgrade makes build_logs again from the build jobs' lines of the projects that still exist (`code` lines
stay `code` there, and become `info` in job_logs; lines are cut to 1000 characters).

Revision ID: e6b2d9f4a8c1
Revises: d5a1c8e3f7b2
Create Date: 2026-11-29

"""

from collections.abc import Sequence

import sqlalchemy as sa

from alembic import op

revision: str = "e6b2d9f4a8c1"
down_revision: str | Sequence[str] | None = "d5a1c8e3f7b2"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

LEVELS = ("info", "success", "warning", "error")
LOG_TYPES = ("info", "success", "error", "code")
# Downgrade: the build jobs' lines back into build_logs, for the projects that still exist (the project is in the
# job's JSON parameters, read in each dialect's words).
_BACK = (
    "INSERT INTO build_logs (project_id, type, message, created_at) "
    "SELECT p.id, CASE WHEN l.level = 'warning' THEN 'info' ELSE l.level END, l.message, l.created_at "
    "FROM job_logs l JOIN jobs j ON j.id = l.job_id JOIN code_projects p ON p.id = {project} "
    "WHERE j.kind = 'build' ORDER BY l.id"
)
BACK_SQLITE = _BACK.replace("{project}", "CAST(json_extract(j.params, '$.projectId') AS INTEGER)")
BACK_POSTGRESQL = _BACK.replace("{project}", "CAST(j.params ->> 'projectId' AS INTEGER)")


def _condition(column: str, values: tuple[str, ...]) -> str:
    return f"{column} IN ({', '.join(repr(value) for value in values)})"


def upgrade() -> None:
    with op.batch_alter_table("job_logs") as batch:
        batch.drop_constraint("ck_job_logs_level", type_="check")
        batch.alter_column("message", type_=sa.Text(), existing_type=sa.String(length=1000), existing_nullable=False)
        batch.create_check_constraint("ck_job_logs_level", _condition("level", (*LEVELS, "code")))
    op.execute(
        "INSERT INTO job_logs (job_id, seq, level, message, created_at) "
        "SELECT p.job_id, j.log_seq + ROW_NUMBER() OVER (PARTITION BY p.job_id ORDER BY b.id), b.type, b.message, "
        "b.created_at FROM build_logs b JOIN code_projects p ON p.id = b.project_id JOIN jobs j ON j.id = p.job_id "
        "ORDER BY b.id"
    )
    op.execute(
        "UPDATE jobs SET log_seq = (SELECT MAX(l.seq) FROM job_logs l WHERE l.job_id = jobs.id) "
        "WHERE kind = 'build' AND EXISTS (SELECT 1 FROM job_logs l WHERE l.job_id = jobs.id)"
    )
    op.drop_index("ix_build_logs_project", table_name="build_logs")
    op.drop_table("build_logs")


def downgrade() -> None:
    op.create_table(
        "build_logs",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("project_id", sa.Integer(), nullable=False),
        sa.Column(
            "type",
            sa.Enum(*LOG_TYPES, name="ck_build_logs_type", native_enum=False, create_constraint=True, length=8),
            nullable=False,
        ),
        sa.Column("message", sa.Text(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["project_id"], ["code_projects.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_build_logs_project", "build_logs", ["project_id", "id"])
    op.execute(BACK_POSTGRESQL if op.get_bind().dialect.name == "postgresql" else BACK_SQLITE)
    op.execute("UPDATE job_logs SET level = 'info' WHERE level = 'code'")
    op.execute("UPDATE job_logs SET message = substr(message, 1, 1000) WHERE length(message) > 1000")
    with op.batch_alter_table("job_logs") as batch:
        batch.drop_constraint("ck_job_logs_level", type_="check")
        batch.alter_column("message", type_=sa.String(length=1000), existing_type=sa.Text(), existing_nullable=False)
        batch.create_check_constraint("ck_job_logs_level", _condition("level", LEVELS))
