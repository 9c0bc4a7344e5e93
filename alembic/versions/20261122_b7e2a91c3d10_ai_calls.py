"""ai_calls: one record per AI model call (feature, task, agent, user, engine, tokens, latency, outcome)

Revision ID: b7e2a91c3d10
Revises: 7c1e0a9d2f44
Create Date: 2026-11-22

"""
from collections.abc import Sequence

import sqlalchemy as sa

from alembic import op

revision: str = 'b7e2a91c3d10'
down_revision: str | Sequence[str] | None = '7c1e0a9d2f44'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "ai_calls",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("feature", sa.String(length=24), nullable=False),
        sa.Column("task", sa.String(length=24), nullable=False),
        sa.Column("agent", sa.String(length=16), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=True),
        sa.Column("parent_id", sa.Integer(), nullable=True),
        sa.Column("provider", sa.String(length=32), nullable=False),
        sa.Column("model", sa.String(length=100), nullable=False),
        sa.Column("prompt_tokens", sa.Integer(), nullable=True),
        sa.Column("completion_tokens", sa.Integer(), nullable=True),
        sa.Column("first_token_ms", sa.Integer(), nullable=True),
        sa.Column("total_ms", sa.Integer(), nullable=False),
        sa.Column("outcome", sa.String(length=8), nullable=False),
        sa.Column("error_kind", sa.String(length=32), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["user_id"], ["users.id"], ondelete="SET NULL"),
        sa.ForeignKeyConstraint(["parent_id"], ["ai_calls.id"], ondelete="SET NULL"),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_ai_calls_created", "ai_calls", ["created_at"])
    op.create_index("ix_ai_calls_agent_created", "ai_calls", ["agent", "created_at"])
    op.create_index("ix_ai_calls_user_id", "ai_calls", ["user_id"])


def downgrade() -> None:
    op.drop_index("ix_ai_calls_user_id", table_name="ai_calls")
    op.drop_index("ix_ai_calls_agent_created", table_name="ai_calls")
    op.drop_index("ix_ai_calls_created", table_name="ai_calls")
    op.drop_table("ai_calls")
