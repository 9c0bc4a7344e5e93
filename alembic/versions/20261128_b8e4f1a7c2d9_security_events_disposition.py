"""security_events: how an admin closed a problem (fixed, false positive, accepted risk until a date)

Also closes the monitor's open problems of sites removed earlier (removal now closes them).

The false_positive flag becomes the disposition false_positive; other admin resolutions become fixed.

Revision ID: b8e4f1a7c2d9
Revises: f3c9b2d7e1a5
Create Date: 2026-11-28

"""

from collections.abc import Sequence

import sqlalchemy as sa

from alembic import op

revision: str = "b8e4f1a7c2d9"
down_revision: str | Sequence[str] | None = "f3c9b2d7e1a5"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

DISPOSITIONS = "disposition IS NULL OR disposition IN ('fixed', 'false_positive', 'accepted_risk')"


def upgrade() -> None:
    with op.batch_alter_table("security_events") as batch:
        batch.add_column(sa.Column("disposition", sa.String(16), nullable=True))
        batch.add_column(sa.Column("accepted_until", sa.DateTime(timezone=True), nullable=True))
        batch.create_check_constraint("ck_security_events_disposition", DISPOSITIONS)
    op.execute("UPDATE security_events SET disposition = 'false_positive' WHERE resolved AND false_positive")
    # Resolved by an admin (an email address; the system closes under its own names): fixed.
    op.execute("UPDATE security_events SET disposition = 'fixed' WHERE resolved AND NOT false_positive "
               "AND resolved_by LIKE '%@%'")
    with op.batch_alter_table("security_events") as batch:
        batch.drop_column("false_positive")
    # The monitor's problems of sites removed before removal closed them (they had no site left to act on).
    op.execute("UPDATE security_events SET resolved = true, resolved_at = CURRENT_TIMESTAMP, resolved_by = 'monitor', "
               "resolution_note = 'Closed: its site was removed from monitoring' "
               "WHERE NOT resolved AND site_id IS NULL AND source = 'monitor'")


def downgrade() -> None:
    with op.batch_alter_table("security_events") as batch:
        batch.add_column(sa.Column("false_positive", sa.Boolean(), nullable=False, server_default=sa.false()))
    op.execute("UPDATE security_events SET false_positive = (disposition = 'false_positive') "
               "WHERE disposition IS NOT NULL")
    with op.batch_alter_table("security_events") as batch:
        batch.drop_constraint("ck_security_events_disposition", type_="check")
        batch.drop_column("accepted_until")
        batch.drop_column("disposition")
