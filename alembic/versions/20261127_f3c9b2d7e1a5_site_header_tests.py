"""sites: every header test of the newest probe (MDN HTTP Observatory results and modifiers)

Revision ID: f3c9b2d7e1a5
Revises: a4d8e2f6b1c3
Create Date: 2026-11-27

"""

from collections.abc import Sequence

import sqlalchemy as sa

from alembic import op

revision: str = "f3c9b2d7e1a5"
down_revision: str | Sequence[str] | None = "a4d8e2f6b1c3"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("sites") as batch:
        batch.add_column(sa.Column("header_tests", sa.JSON(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("sites") as batch:
        batch.drop_column("header_tests")
