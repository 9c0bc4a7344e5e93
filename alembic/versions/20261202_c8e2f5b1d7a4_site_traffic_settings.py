"""A site's traffic settings: the requests per minute it is built for, and the path its signups are POSTed to

Revision ID: c8e2f5b1d7a4
Revises: b4d7e1a9c3f6
Create Date: 2026-12-02

"""

from collections.abc import Sequence

import sqlalchemy as sa

from alembic import op

revision: str = "c8e2f5b1d7a4"
down_revision: str | Sequence[str] | None = "b4d7e1a9c3f6"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("sites") as batch:
        batch.add_column(sa.Column("capacity_rpm", sa.Integer(), nullable=True))
        batch.add_column(sa.Column("signup_route", sa.String(length=200), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("sites") as batch:
        batch.drop_column("signup_route")
        batch.drop_column("capacity_rpm")
