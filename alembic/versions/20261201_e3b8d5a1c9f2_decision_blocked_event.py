"""A decision names the Threats Blocked record that counts the requests its site answered 403/429 because of it

Revision ID: e3b8d5a1c9f2
Revises: c6f2b9e4a7d1
Create Date: 2026-12-01

"""

from collections.abc import Sequence

import sqlalchemy as sa

from alembic import op

revision: str = "e3b8d5a1c9f2"
down_revision: str | Sequence[str] | None = "c6f2b9e4a7d1"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("traffic_decisions") as batch:
        batch.add_column(sa.Column("blocked_event_id", sa.Integer(), nullable=True))
        batch.create_foreign_key(
            "fk_traffic_decisions_blocked_event_id_security_events",
            "security_events",
            ["blocked_event_id"],
            ["id"],
            ondelete="SET NULL",
        )


def downgrade() -> None:
    with op.batch_alter_table("traffic_decisions") as batch:
        batch.drop_constraint("fk_traffic_decisions_blocked_event_id_security_events", type_="foreignkey")
        batch.drop_column("blocked_event_id")
