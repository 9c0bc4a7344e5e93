"""demo_defenses (each demo site's current defense config) and demo_requests (its bounded request log)

Revision ID: e8a4c6f2b910
Revises: b7d2e9f4a1c6
Create Date: 2026-11-22

"""

from collections.abc import Sequence

import sqlalchemy as sa

from alembic import op

revision: str = "e8a4c6f2b910"
down_revision: str | Sequence[str] | None = "b7d2e9f4a1c6"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "demo_defenses",
        sa.Column("slug", sa.String(length=16), nullable=False),
        sa.Column("config", sa.JSON(), nullable=False),
        sa.Column("revision", sa.Integer(), nullable=False),
        sa.Column("source", sa.String(length=32), nullable=False),
        sa.Column("operation_id", sa.String(length=64), nullable=True),
        sa.Column("updated_by", sa.Integer(), nullable=True),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["updated_by"], ["users.id"], ondelete="SET NULL"),
        sa.PrimaryKeyConstraint("slug"),
    )
    op.create_table(
        "demo_requests",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("slug", sa.String(length=16), nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("client", sa.String(length=64), nullable=False),
        sa.Column("method", sa.String(length=8), nullable=False),
        sa.Column("path", sa.String(length=200), nullable=False),
        sa.Column("endpoint", sa.String(length=16), nullable=False),
        sa.Column("status_code", sa.Integer(), nullable=False),
        sa.Column("operation_id", sa.String(length=64), nullable=True),
        sa.Column(
            "traffic",
            sa.Enum("attack", "benign", name="ck_demo_requests_traffic", native_enum=False, create_constraint=True, length=8),
            nullable=True,
        ),
        sa.Column("blocked", sa.Boolean(), nullable=False),
        sa.Column("rule", sa.String(length=120), nullable=True),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_demo_requests_site_id", "demo_requests", ["slug", "id"])
    op.create_index("ix_demo_requests_site_client_at", "demo_requests", ["slug", "client", "at"])
    op.create_index("ix_demo_requests_operation", "demo_requests", ["operation_id", "traffic", "blocked"])


def downgrade() -> None:
    op.drop_index("ix_demo_requests_operation", table_name="demo_requests")
    op.drop_index("ix_demo_requests_site_client_at", table_name="demo_requests")
    op.drop_index("ix_demo_requests_site_id", table_name="demo_requests")
    op.drop_table("demo_requests")
    op.drop_table("demo_defenses")
