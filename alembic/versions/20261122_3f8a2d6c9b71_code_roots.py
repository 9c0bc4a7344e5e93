"""code roots: the folders the Security Scan reads, each with the site it belongs to

Revision ID: 3f8a2d6c9b71
Revises: b7e2a91c3d10
Create Date: 2026-11-22

"""
from collections.abc import Sequence

import sqlalchemy as sa

from alembic import op

revision: str = '3f8a2d6c9b71'
down_revision: str | Sequence[str] | None = 'b7e2a91c3d10'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "code_roots",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("path", sa.String(length=1000), nullable=False),
        sa.Column("site_id", sa.Integer(), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["site_id"], ["sites.id"], ondelete="SET NULL"),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("path"),
    )
    op.create_index("ix_code_roots_site_id", "code_roots", ["site_id"])


def downgrade() -> None:
    op.drop_index("ix_code_roots_site_id", table_name="code_roots")
    op.drop_table("code_roots")
