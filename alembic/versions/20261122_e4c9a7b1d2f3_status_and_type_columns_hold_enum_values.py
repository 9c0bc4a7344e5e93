"""status and type columns hold only their enum's values: a CHECK constraint on each

users.role, history_logs.category and .severity, sites.status, site_checks.status,
security_events.event_type, .severity and .source, ai_activities.activity_type. The columns stay
VARCHAR of the same length (SQLite and PostgreSQL alike); the models type them with the StrEnums
(models/base.py `_enum`). Rows an older version wrote with another value are first given the
column's safe default where there is one (a role becomes limited, a site CHECKING, a log entry
system/info); an event or activity type has none, and the code never wrote another.

Revision ID: e4c9a7b1d2f3
Revises: 3f8a2d6c9b71
Create Date: 2026-11-22

"""
from collections.abc import Sequence

import sqlalchemy as sa

from alembic import op

revision: str = 'e4c9a7b1d2f3'
down_revision: str | Sequence[str] | None = '3f8a2d6c9b71'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# (table, column, allowed values as of this revision, the default for other values or None)
CHECKS: list[tuple[str, str, tuple[str, ...], str | None]] = [
    ("users", "role", ("admin", "limited"), "limited"),
    ("history_logs", "category", ("security", "ai", "battle", "user", "system"), "system"),
    ("history_logs", "severity", ("info", "warning", "error", "critical"), "info"),
    ("sites", "status", ("secure", "warning", "critical"), "warning"),
    ("site_checks", "status", ("secure", "warning", "critical"), "warning"),
    ("security_events", "event_type",
     ("threat_blocked", "attack_detected", "vulnerability_fixed", "vulnerability_detected", "site_status_changed"), None),
    ("security_events", "severity", ("high", "medium", "low"), "medium"),
    ("security_events", "source", ("monitor", "scanner", "drill", "fix"), "monitor"),
    ("ai_activities", "activity_type", ("patch", "optimize", "block", "scan"), None),
]


def _condition(column: str, values: tuple[str, ...]) -> str:
    return f"{column} IN ({', '.join(repr(value) for value in values)})"


def upgrade() -> None:
    bind = op.get_bind()
    for table, column, values, default in CHECKS:
        if default is not None:
            rows = sa.table(table, sa.column(column, sa.String))
            bind.execute(rows.update().where(rows.c[column].not_in(values)).values({column: default}))
    for table in dict.fromkeys(table for table, *_ in CHECKS):
        with op.batch_alter_table(table) as batch:
            for check_table, column, values, _default in CHECKS:
                if check_table == table:
                    batch.create_check_constraint(f"ck_{table}_{column}", _condition(column, values))


def downgrade() -> None:
    for table in dict.fromkeys(table for table, *_ in CHECKS):
        with op.batch_alter_table(table) as batch:
            for check_table, column, _values, _default in CHECKS:
                if check_table == table:
                    batch.drop_constraint(f"ck_{table}_{column}", type_="check")
