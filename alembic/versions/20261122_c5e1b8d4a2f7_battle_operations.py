"""battle_operations (one row per Battle Station drill) and security_events.blocked_requests

Revision ID: c5e1b8d4a2f7
Revises: e8a4c6f2b910
Create Date: 2026-11-22

"""

from collections.abc import Sequence

import sqlalchemy as sa

from alembic import op

revision: str = "c5e1b8d4a2f7"
down_revision: str | Sequence[str] | None = "e8a4c6f2b910"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

ATTACK_TYPES = ("ddos", "sql_injection", "xss", "malware", "brute_force", "phishing")
STATUSES = ("running", "defended", "partial", "failed", "stopped")


def upgrade() -> None:
    op.create_table(
        "battle_operations",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("job_id", sa.Integer(), nullable=True),
        sa.Column(
            "attack_type",
            sa.Enum(*ATTACK_TYPES, name="ck_battle_operations_attack_type", native_enum=False, create_constraint=True, length=16),
            nullable=False,
        ),
        sa.Column("site", sa.String(length=16), nullable=False),
        sa.Column("agent_id", sa.String(length=16), nullable=True),
        sa.Column("attack_source", sa.String(length=64), nullable=False),
        sa.Column("simulated", sa.Boolean(), nullable=False),
        sa.Column(
            "status",
            sa.Enum(*STATUSES, name="ck_battle_operations_status", native_enum=False, create_constraint=True, length=16),
            nullable=False,
        ),
        sa.Column("effectiveness", sa.Integer(), nullable=True),
        sa.Column("mitre_technique", sa.String(length=16), nullable=False),
        sa.Column("baseline", sa.JSON(), nullable=False),
        sa.Column("after", sa.JSON(), nullable=False),
        sa.Column("defense_strategy", sa.Text(), nullable=False),
        sa.Column("defense_code", sa.Text(), nullable=False),
        sa.Column("defense_config", sa.JSON(), nullable=False),
        sa.Column("defense_revision", sa.Integer(), nullable=True),
        sa.Column("provider", sa.String(length=32), nullable=False),
        sa.Column("model", sa.String(length=100), nullable=False),
        sa.Column("error", sa.String(length=500), nullable=True),
        sa.Column("started_by", sa.Integer(), nullable=True),
        sa.Column("started_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("finished_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(["job_id"], ["jobs.id"], ondelete="SET NULL"),
        sa.ForeignKeyConstraint(["started_by"], ["users.id"], ondelete="SET NULL"),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_battle_operations_started", "battle_operations", ["started_at"])
    op.create_index("ix_battle_operations_site", "battle_operations", ["site", "status"])
    with op.batch_alter_table("security_events") as batch:
        batch.add_column(sa.Column("blocked_requests", sa.Integer(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("security_events") as batch:
        batch.drop_column("blocked_requests")
    op.drop_index("ix_battle_operations_site", table_name="battle_operations")
    op.drop_index("ix_battle_operations_started", table_name="battle_operations")
    op.drop_table("battle_operations")
