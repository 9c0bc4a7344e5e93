"""Traffic of Battle Station drills: the demo sites' requests and the detections they complete name the drill

Revision ID: c6f2b9e4a7d1
Revises: a9d4e2c7f1b3
Create Date: 2026-11-30

"""

from collections.abc import Sequence

import sqlalchemy as sa

from alembic import op

revision: str = "c6f2b9e4a7d1"
down_revision: str | Sequence[str] | None = "a9d4e2c7f1b3"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("traffic_requests") as batch:
        batch.add_column(sa.Column("operation_id", sa.String(length=64), nullable=True))
    with op.batch_alter_table("traffic_detections") as batch:
        batch.add_column(sa.Column("operation_id", sa.String(length=64), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("traffic_detections") as batch:
        batch.drop_column("operation_id")
    with op.batch_alter_table("traffic_requests") as batch:
        batch.drop_column("operation_id")
