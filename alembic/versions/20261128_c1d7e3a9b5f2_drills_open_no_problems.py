"""Drills open no problems; an agent's threats blocked are counted from the events, not kept as a tally

Closes the attack_detected records drills opened (their outcome lives on Battle Station) and drops
agent_records.threats_blocked (a second count beside the events that could disagree with them).

Revision ID: c1d7e3a9b5f2
Revises: b8e4f1a7c2d9
Create Date: 2026-11-28

"""

from collections.abc import Sequence

import sqlalchemy as sa

from alembic import op

revision: str = "c1d7e3a9b5f2"
down_revision: str | Sequence[str] | None = "b8e4f1a7c2d9"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.execute("UPDATE security_events SET resolved = true, resolved_at = CURRENT_TIMESTAMP, resolved_by = 'drill', "
               "resolution_note = 'Closed: a drill record, not a problem (its outcome is on Battle Station)' "
               "WHERE NOT resolved AND source = 'drill'")
    with op.batch_alter_table("agent_records") as batch:
        batch.drop_column("threats_blocked")


def downgrade() -> None:
    with op.batch_alter_table("agent_records") as batch:
        batch.add_column(sa.Column("threats_blocked", sa.Integer(), nullable=False, server_default="0"))
