"""sites and site checks: time to first byte, redirects, TLS days to one decimal and the expiry instant; a saved site
is probed at once

The response time stored before covered the last redirect hop only, without the body: it stays in response_time_ms /
response_ms, now the total time over every hop and the body. tls_days_left becomes a float (one decimal, rounded
instead of floored). probe_requested_at is when a site was added or changed: the monitor probes at once a site
saved since its last check.

Revision ID: a4d8e2f6b1c3
Revises: e9b3c6a1f4d2
Create Date: 2026-11-26

"""

from collections.abc import Sequence

import sqlalchemy as sa

from alembic import op

revision: str = "a4d8e2f6b1c3"
down_revision: str | Sequence[str] | None = "e9b3c6a1f4d2"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("sites") as batch:
        batch.add_column(sa.Column("ttfb_ms", sa.Integer(), nullable=True))
        batch.add_column(sa.Column("redirects", sa.Integer(), nullable=True))
        batch.add_column(sa.Column("tls_expires_at", sa.DateTime(timezone=True), nullable=True))
        batch.add_column(sa.Column("probe_requested_at", sa.DateTime(timezone=True), nullable=True))
        batch.alter_column("tls_days_left", existing_type=sa.Integer(), type_=sa.Float(), existing_nullable=True)
    with op.batch_alter_table("site_checks") as batch:
        batch.add_column(sa.Column("ttfb_ms", sa.Integer(), nullable=True))
        batch.add_column(sa.Column("redirects", sa.Integer(), nullable=True))
        batch.alter_column("tls_days_left", existing_type=sa.Integer(), type_=sa.Float(), existing_nullable=True)


def downgrade() -> None:
    with op.batch_alter_table("site_checks") as batch:
        batch.alter_column("tls_days_left", existing_type=sa.Float(), type_=sa.Integer(), existing_nullable=True)
        batch.drop_column("redirects")
        batch.drop_column("ttfb_ms")
    with op.batch_alter_table("sites") as batch:
        batch.alter_column("tls_days_left", existing_type=sa.Float(), type_=sa.Integer(), existing_nullable=True)
        batch.drop_column("probe_requested_at")
        batch.drop_column("tls_expires_at")
        batch.drop_column("redirects")
        batch.drop_column("ttfb_ms")
