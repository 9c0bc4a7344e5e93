"""Sites at scale: a site's tags (the list filters by them) and whether its monitoring is paused

Revision ID: d2a6c9e4b1f8
Revises: b5d1e8a3f6c7
Create Date: 2026-12-03

"""

from collections.abc import Sequence

import sqlalchemy as sa

from alembic import op

revision: str = "d2a6c9e4b1f8"
down_revision: str | Sequence[str] | None = "b5d1e8a3f6c7"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("sites") as batch:
        batch.add_column(sa.Column("tags", sa.JSON(), nullable=False, server_default="[]"))
        batch.add_column(sa.Column("paused", sa.Boolean(), nullable=False, server_default=sa.false()))


def downgrade() -> None:
    with op.batch_alter_table("sites") as batch:
        batch.drop_column("paused")
        batch.drop_column("tags")
