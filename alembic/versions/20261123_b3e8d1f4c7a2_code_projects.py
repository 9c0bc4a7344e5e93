"""code projects (Live Code Builder: projects, their files and build logs)

Revision ID: b3e8d1f4c7a2
Revises: a7d3f9c2e6b1
Create Date: 2026-11-23

"""

from collections.abc import Sequence

import sqlalchemy as sa

from alembic import op

revision: str = "b3e8d1f4c7a2"
down_revision: str | Sequence[str] | None = "a7d3f9c2e6b1"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

STATUSES = ("planning", "building", "testing", "complete", "failed")
LOG_TYPES = ("info", "success", "error", "code")
CHANGES = ("created", "updated", "unchanged")


def _enum(values: tuple[str, ...], name: str, length: int) -> sa.Enum:
    return sa.Enum(*values, name=name, native_enum=False, create_constraint=True, length=length)


def upgrade() -> None:
    op.create_table(
        "code_projects",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("owner_user_id", sa.Integer(), nullable=False),
        sa.Column("current_of", sa.Integer(), nullable=True),
        sa.Column("snapshot_of", sa.Integer(), nullable=True),
        sa.Column("name", sa.String(length=100), nullable=False),
        sa.Column("description", sa.String(length=500), nullable=False),
        sa.Column("prompt", sa.Text(), nullable=False),
        sa.Column("status", _enum(STATUSES, "ck_code_projects_status", 16), nullable=False),
        sa.Column("job_id", sa.Integer(), nullable=True),
        sa.Column("engine", sa.String(length=32), nullable=False),
        sa.Column("model", sa.String(length=100), nullable=False),
        sa.Column("error", sa.String(length=1000), nullable=True),
        sa.Column("checks", sa.JSON(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["owner_user_id"], ["users.id"], ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["snapshot_of"], ["code_projects.id"], ondelete="SET NULL"),
        sa.ForeignKeyConstraint(["job_id"], ["jobs.id"], ondelete="SET NULL"),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("current_of", name="uq_code_projects_current_of"),
    )
    op.create_index("ix_code_projects_owner", "code_projects", ["owner_user_id", "id"])
    op.create_table(
        "project_files",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("project_id", sa.Integer(), nullable=False),
        sa.Column("filename", sa.String(length=200), nullable=False),
        sa.Column("language", sa.String(length=32), nullable=False),
        sa.Column("description", sa.String(length=300), nullable=False),
        sa.Column("content", sa.Text(), nullable=False),
        sa.Column("previous", sa.Text(), nullable=True),
        sa.Column("change", _enum(CHANGES, "ck_project_files_change", 16), nullable=False),
        sa.Column("complete", sa.Boolean(), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["project_id"], ["code_projects.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("project_id", "filename", name="uq_project_files_name"),
    )
    op.create_table(
        "build_logs",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("project_id", sa.Integer(), nullable=False),
        sa.Column("type", _enum(LOG_TYPES, "ck_build_logs_type", 8), nullable=False),
        sa.Column("message", sa.Text(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["project_id"], ["code_projects.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_build_logs_project", "build_logs", ["project_id", "id"])


def downgrade() -> None:
    op.drop_index("ix_build_logs_project", table_name="build_logs")
    op.drop_table("build_logs")
    op.drop_table("project_files")
    op.drop_index("ix_code_projects_owner", table_name="code_projects")
    op.drop_table("code_projects")
