"""fixes (Fix Mode: one row per proposed fix for one open problem)

Revision ID: a7d3f9c2e6b1
Revises: c5e1b8d4a2f7
Create Date: 2026-11-23

"""

from collections.abc import Sequence

import sqlalchemy as sa

from alembic import op

revision: str = "a7d3f9c2e6b1"
down_revision: str | Sequence[str] | None = "c5e1b8d4a2f7"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

KINDS = ("code", "site")
STATUSES = ("proposing", "proposed", "applied", "verified", "not_verified", "rejected", "failed", "reverted")


def upgrade() -> None:
    op.create_table(
        "fixes",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("event_id", sa.Integer(), nullable=False),
        sa.Column("site_id", sa.Integer(), nullable=True),
        sa.Column("kind", sa.Enum(*KINDS, name="ck_fixes_kind", native_enum=False, create_constraint=True, length=8),
                  nullable=False),
        sa.Column("status", sa.Enum(*STATUSES, name="ck_fixes_status", native_enum=False, create_constraint=True,
                                    length=16), nullable=False),
        sa.Column("job_id", sa.Integer(), nullable=True),
        sa.Column("agent_id", sa.String(length=16), nullable=False),
        sa.Column("provider", sa.String(length=32), nullable=False),
        sa.Column("model", sa.String(length=100), nullable=False),
        sa.Column("root", sa.String(length=1000), nullable=False),
        sa.Column("file", sa.String(length=1000), nullable=False),
        sa.Column("rule", sa.String(length=200), nullable=False),
        sa.Column("diff", sa.Text(), nullable=False),
        sa.Column("change", sa.JSON(), nullable=False),
        sa.Column("explanation", sa.String(length=2000), nullable=False),
        sa.Column("risk", sa.String(length=2000), nullable=False),
        sa.Column("error", sa.String(length=1000), nullable=True),
        sa.Column("previous", sa.JSON(), nullable=False),
        sa.Column("applied", sa.JSON(), nullable=False),
        sa.Column("verification", sa.JSON(), nullable=False),
        sa.Column("proposed_by", sa.Integer(), nullable=True),
        sa.Column("decided_by", sa.Integer(), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("applied_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("verified_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(["event_id"], ["security_events.id"], ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["site_id"], ["sites.id"], ondelete="SET NULL"),
        sa.ForeignKeyConstraint(["job_id"], ["jobs.id"], ondelete="SET NULL"),
        sa.ForeignKeyConstraint(["proposed_by"], ["users.id"], ondelete="SET NULL"),
        sa.ForeignKeyConstraint(["decided_by"], ["users.id"], ondelete="SET NULL"),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_fixes_event", "fixes", ["event_id", "id"])
    op.create_index("ix_fixes_status", "fixes", ["status"])


def downgrade() -> None:
    op.drop_index("ix_fixes_status", table_name="fixes")
    op.drop_index("ix_fixes_event", table_name="fixes")
    op.drop_table("fixes")
