"""Real traffic: ingest tokens, requests, per-minute figures, detections and decisions (services/traffic)

Revision ID: f7c3a1e9d2b4
Revises: e6b2d9f4a8c1
Create Date: 2026-11-30

"""

from collections.abc import Sequence

import sqlalchemy as sa

from alembic import op

revision: str = "f7c3a1e9d2b4"
down_revision: str | Sequence[str] | None = "e6b2d9f4a8c1"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

DECISION_TYPES = ("ban", "throttle")
DECISION_ORIGINS = ("scenario", "operator", "drill")


def _when(name: str, nullable: bool = False) -> sa.Column:
    return sa.Column(name, sa.DateTime(timezone=True), nullable=nullable)


def upgrade() -> None:
    op.create_table(
        "ingest_tokens",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("site_id", sa.Integer(), nullable=False),
        sa.Column("token_hash", sa.String(length=64), nullable=False),
        sa.Column("prefix", sa.String(length=16), nullable=False),
        sa.Column("created_by_user_id", sa.Integer(), nullable=True),
        _when("created_at"),
        _when("last_used_at", nullable=True),
        _when("revoked_at", nullable=True),
        sa.ForeignKeyConstraint(["site_id"], ["sites.id"], ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["created_by_user_id"], ["users.id"], ondelete="SET NULL"),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("token_hash"),
    )
    op.create_index("ix_ingest_tokens_site_id", "ingest_tokens", ["site_id"])
    op.create_table(
        "traffic_requests",
        sa.Column("id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=False),
        sa.Column("site_id", sa.Integer(), nullable=False),
        _when("time"),
        sa.Column("address", sa.String(length=45), nullable=False),
        sa.Column("client", sa.String(length=45), nullable=False),
        sa.Column("method", sa.String(length=16), nullable=False),
        sa.Column("target", sa.String(length=1024), nullable=False),
        sa.Column("status", sa.Integer(), nullable=False),
        sa.Column("size", sa.BigInteger(), nullable=False),
        sa.Column("user_agent", sa.String(length=512), nullable=False),
        sa.Column("referer", sa.String(length=512), nullable=False),
        sa.ForeignKeyConstraint(["site_id"], ["sites.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_traffic_requests_site_time", "traffic_requests", ["site_id", "time"])
    op.create_index("ix_traffic_requests_time", "traffic_requests", ["time"])
    op.create_index("ix_traffic_requests_client_time", "traffic_requests", ["client", "time"])
    op.create_table(
        "traffic_minutes",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("site_id", sa.Integer(), nullable=False),
        _when("minute"),
        *(sa.Column(name, sa.Integer(), nullable=False) for name in ("requests",)),
        sa.Column("bytes", sa.BigInteger(), nullable=False),
        *(
            sa.Column(name, sa.Integer(), nullable=False)
            for name in ("status_2xx", "status_3xx", "status_4xx", "status_5xx", "blocked", "signups")
        ),
        sa.ForeignKeyConstraint(["site_id"], ["sites.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("site_id", "minute", name="uq_traffic_minutes_site_minute"),
    )
    op.create_index("ix_traffic_minutes_minute", "traffic_minutes", ["minute"])
    op.create_table(
        "traffic_decisions",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("scope", sa.String(length=8), nullable=False),
        sa.Column("value", sa.String(length=49), nullable=False),
        sa.Column(
            "type",
            sa.Enum(*DECISION_TYPES, name="ck_traffic_decisions_type", native_enum=False, create_constraint=True, length=8),
            nullable=False,
        ),
        sa.Column(
            "origin",
            sa.Enum(
                *DECISION_ORIGINS, name="ck_traffic_decisions_origin", native_enum=False, create_constraint=True, length=8
            ),
            nullable=False,
        ),
        sa.Column("scenario", sa.String(length=81), nullable=False),
        sa.Column("reason", sa.String(length=300), nullable=False),
        sa.Column("site_id", sa.Integer(), nullable=True),
        sa.Column("created_by_user_id", sa.Integer(), nullable=True),
        _when("created_at"),
        _when("until"),
        _when("deleted_at", nullable=True),
        sa.ForeignKeyConstraint(["site_id"], ["sites.id"], ondelete="SET NULL"),
        sa.ForeignKeyConstraint(["created_by_user_id"], ["users.id"], ondelete="SET NULL"),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_traffic_decisions_until", "traffic_decisions", ["until"])
    op.create_index("ix_traffic_decisions_value", "traffic_decisions", ["value"])
    op.create_table(
        "traffic_detections",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("site_id", sa.Integer(), nullable=False),
        sa.Column("scenario", sa.String(length=81), nullable=False),
        sa.Column("family", sa.String(length=40), nullable=False),
        sa.Column("description", sa.String(length=300), nullable=False),
        sa.Column("address", sa.String(length=45), nullable=False),
        sa.Column("client", sa.String(length=45), nullable=False),
        _when("first_seen"),
        _when("last_seen"),
        sa.Column("events", sa.Integer(), nullable=False),
        sa.Column("samples", sa.JSON(), nullable=True),
        sa.Column("severity", sa.String(length=8), nullable=False),
        sa.Column("raised_because", sa.String(length=300), nullable=True),
        sa.Column("decision_id", sa.Integer(), nullable=True),
        _when("created_at"),
        sa.ForeignKeyConstraint(["site_id"], ["sites.id"], ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["decision_id"], ["traffic_decisions.id"], ondelete="SET NULL"),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_traffic_detections_site_created", "traffic_detections", ["site_id", "created_at"])


def downgrade() -> None:
    op.drop_table("traffic_detections")
    op.drop_table("traffic_decisions")
    op.drop_table("traffic_minutes")
    op.drop_table("traffic_requests")
    op.drop_table("ingest_tokens")
