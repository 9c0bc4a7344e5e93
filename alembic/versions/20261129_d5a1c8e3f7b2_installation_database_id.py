"""The database's own id, which its data directory records (secdash/core/data_dir.py)

A one-row table `installation` holding a random id made here, once per database. A data directory records the
id of the database it belongs to (`DATA_DIR/database-id`); start-up refuses a data directory that belongs to
another database, so two databases never share workspaces, projects or keys. No model maps it: only
core/data_dir.py reads it, and the tests' per-test emptying of the model tables leaves it alone.

Revision ID: d5a1c8e3f7b2
Revises: c1d7e3a9b5f2
Create Date: 2026-11-29

"""

import uuid
from collections.abc import Sequence

import sqlalchemy as sa

from alembic import op

revision: str = "d5a1c8e3f7b2"
down_revision: str | Sequence[str] | None = "c1d7e3a9b5f2"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    table = op.create_table(
        "installation",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("database_id", sa.String(length=64), nullable=False),
    )
    op.bulk_insert(table, [{"id": 1, "database_id": uuid.uuid4().hex}])


def downgrade() -> None:
    op.drop_table("installation")
