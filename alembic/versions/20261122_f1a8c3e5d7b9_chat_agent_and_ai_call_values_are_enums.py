"""chat, agent and AI-call status and type columns hold only their enum's values: a CHECK on each

defense_chat_messages.role, .surface and .threat_level (NULL allowed), agent_records.status and
ai_calls.outcome (models/ai_kinds.py, models/ai.py). Same VARCHARs; rows an older version wrote
with another value get the column's safe default first (a surface "widget", a threat level none,
an agent "monitoring", a call outcome "error"); a chat role has none, and the code never wrote another.

Revision ID: f1a8c3e5d7b9
Revises: e4c9a7b1d2f3
Create Date: 2026-11-22

"""
from collections.abc import Sequence

import sqlalchemy as sa

from alembic import op

revision: str = 'f1a8c3e5d7b9'
down_revision: str | Sequence[str] | None = 'e4c9a7b1d2f3'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

NO_DEFAULT = object()
# (table, column, allowed values as of this revision, the value for other values, or NO_DEFAULT)
CHECKS: list[tuple[str, str, tuple[str, ...], object]] = [
    ("defense_chat_messages", "role", ("user", "assistant"), NO_DEFAULT),
    ("defense_chat_messages", "surface", ("widget", "command", "center", "api"), "widget"),
    ("defense_chat_messages", "threat_level", ("low", "medium", "high", "critical"), None),
    ("agent_records", "status", ("monitoring", "fighting", "analyzing", "secured"), "monitoring"),
    ("ai_calls", "outcome", ("ok", "error", "stopped"), "error"),
]


def _condition(column: str, values: tuple[str, ...]) -> str:
    return f"{column} IN ({', '.join(repr(value) for value in values)})"


def upgrade() -> None:
    bind = op.get_bind()
    for table, column, values, default in CHECKS:
        if default is not NO_DEFAULT:
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
