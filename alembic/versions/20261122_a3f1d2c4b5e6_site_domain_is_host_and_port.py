"""site domain is host[:port]: drop the path older versions stored in it

Revision ID: a3f1d2c4b5e6
Revises: d56fbec1f9a1
Create Date: 2026-11-22

"""
from collections.abc import Sequence
from typing import Union
from urllib.parse import urlsplit

import sqlalchemy as sa

from alembic import op

revision: str = 'a3f1d2c4b5e6'
down_revision: Union[str, Sequence[str], None] = 'd56fbec1f9a1'
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None

sites = sa.table("sites", sa.column("id", sa.Integer), sa.column("url", sa.String), sa.column("domain", sa.String))


def upgrade() -> None:
    bind = op.get_bind()
    for site_id, url, domain in bind.execute(sa.select(sites.c.id, sites.c.url, sites.c.domain)).all():
        host = urlsplit(url or "").netloc.rpartition("@")[2]
        if host and host != domain:
            bind.execute(sites.update().where(sites.c.id == site_id).values(domain=host[:253]))


def downgrade() -> None:
    """Nothing to undo: host[:port] is a valid domain for the older code too."""
