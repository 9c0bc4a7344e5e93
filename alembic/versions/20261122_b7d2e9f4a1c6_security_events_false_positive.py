"""security events: an admin may resolve an event as a false positive (AI Systems counts them)

Revision ID: b7d2e9f4a1c6
Revises: 9a4e6b2c1d83
Create Date: 2026-11-22

"""
from collections.abc import Sequence

import sqlalchemy as sa

from alembic import op

revision: str = 'b7d2e9f4a1c6'
down_revision: str | Sequence[str] | None = '9a4e6b2c1d83'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table('security_events', schema=None) as batch_op:
        batch_op.add_column(sa.Column('false_positive', sa.Boolean(), nullable=False, server_default=sa.false()))


def downgrade() -> None:
    with op.batch_alter_table('security_events', schema=None) as batch_op:
        batch_op.drop_column('false_positive')
