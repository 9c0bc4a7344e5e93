"""exactly-one rules in the database: one running scan (partial unique index), default sites once (unique slug)

Existing data is made to fit first: of several running scans the newest stays running and the others are marked
failed (interrupted); of duplicated default sites the oldest per slug keeps the slug and later copies that are still
the untouched demo site (same URL) are removed, with their checks; their events stay, without the site.

Revision ID: 5b8c73155b9c
Revises: a3f1d2c4b5e6
Create Date: 2026-11-22

"""
from collections.abc import Sequence
from datetime import UTC, datetime

import sqlalchemy as sa

from alembic import op

revision: str = '5b8c73155b9c'
down_revision: str | Sequence[str] | None = 'a3f1d2c4b5e6'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

DEFAULT_SLUGS = ("stock", "tour", "gem", "shares")
RUNNING = sa.text("status = 'running'")

scan_jobs = sa.table("scan_jobs", sa.column("id", sa.Integer), sa.column("status", sa.String),
                     sa.column("error", sa.String), sa.column("finished_at", sa.DateTime(timezone=True)))
sites = sa.table("sites", sa.column("id", sa.Integer), sa.column("url", sa.String), sa.column("is_demo", sa.Boolean),
                 sa.column("default_slug", sa.String))
site_checks = sa.table("site_checks", sa.column("site_id", sa.Integer))
security_events = sa.table("security_events", sa.column("site_id", sa.Integer))


def _default_slug(url: str) -> str | None:
    """The slug of a default site's URL (<base>/demo/<slug>/), or None."""
    parts = (url or "").rstrip("/").rsplit("/", 2)
    return parts[2] if len(parts) == 3 and parts[1] == "demo" and parts[2] in DEFAULT_SLUGS else None


def upgrade() -> None:
    bind = op.get_bind()
    running = [row[0] for row in bind.execute(
        sa.select(scan_jobs.c.id).where(scan_jobs.c.status == "running").order_by(scan_jobs.c.id.desc())).all()]
    if len(running) > 1:
        bind.execute(scan_jobs.update().where(scan_jobs.c.id.in_(running[1:])).values(
            status="failed", error="Interrupted: another scan was running at the same time",
            finished_at=datetime.now(UTC)))
    op.create_index("uq_scan_jobs_one_running", "scan_jobs", ["status"], unique=True,
                    sqlite_where=RUNNING, postgresql_where=RUNNING)

    with op.batch_alter_table("sites") as batch_op:
        batch_op.add_column(sa.Column("default_slug", sa.String(length=16), nullable=True))
    kept: dict[str, tuple[int, str]] = {}
    duplicates: list[int] = []
    for site_id, url in bind.execute(
            sa.select(sites.c.id, sites.c.url).where(sites.c.is_demo == sa.true()).order_by(sites.c.id)).all():
        slug = _default_slug(url)
        if slug is None:
            continue
        if slug not in kept:
            kept[slug] = (site_id, url)
            bind.execute(sites.update().where(sites.c.id == site_id).values(default_slug=slug))
        elif url == kept[slug][1]:
            duplicates.append(site_id)
    if duplicates:  # no reliance on ON DELETE actions: SQLite enforces them only with a pragma
        bind.execute(site_checks.delete().where(site_checks.c.site_id.in_(duplicates)))
        bind.execute(security_events.update().where(security_events.c.site_id.in_(duplicates)).values(site_id=None))
        bind.execute(sites.delete().where(sites.c.id.in_(duplicates)))
    with op.batch_alter_table("sites") as batch_op:
        batch_op.create_index("uq_sites_default_slug", ["default_slug"], unique=True)


def downgrade() -> None:
    with op.batch_alter_table("sites") as batch_op:
        batch_op.drop_index("uq_sites_default_slug")
        batch_op.drop_column("default_slug")
    op.drop_index("uq_scan_jobs_one_running", table_name="scan_jobs")
