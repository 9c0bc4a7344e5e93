"""Attacks on a site are problems and alerts: security_events.source may be `traffic`, and the notification rules
and deliveries may be of kind `attack_detected` (its rule is added by the app, services/alerting/rules.py)

Downgrade removes the traffic problems, the attack_detected rule and its deliveries first, so the narrower checks
hold.

Revision ID: b4d7e1a9c3f6
Revises: e3b8d5a1c9f2
Create Date: 2026-12-02

"""

from collections.abc import Sequence

from alembic import op

revision: str = "b4d7e1a9c3f6"
down_revision: str | Sequence[str] | None = "e3b8d5a1c9f2"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

SOURCES = ("monitor", "scanner", "drill", "fix")
KINDS = ("site_down", "site_checking", "site_recovered", "tls_expiring", "finding", "drill_weak", "account_locked", "test")


def _condition(column: str, values: tuple[str, ...]) -> str:
    return f"{column} IN ({', '.join(repr(value) for value in values)})"


def _checks(sources: tuple[str, ...], kinds: tuple[str, ...]) -> None:
    with op.batch_alter_table("security_events") as batch:
        batch.drop_constraint("ck_security_events_source", type_="check")
        batch.create_check_constraint("ck_security_events_source", _condition("source", sources))
    for table in ("notification_rules", "notification_deliveries"):
        with op.batch_alter_table(table) as batch:
            batch.drop_constraint(f"ck_{table}_kind", type_="check")
            batch.create_check_constraint(f"ck_{table}_kind", _condition("kind", kinds))


def upgrade() -> None:
    _checks((*SOURCES, "traffic"), (*KINDS, "attack_detected"))


def downgrade() -> None:
    op.execute("DELETE FROM notification_deliveries WHERE kind = 'attack_detected'")
    op.execute("DELETE FROM notification_rules WHERE kind = 'attack_detected'")
    op.execute("DELETE FROM security_events WHERE source = 'traffic'")
    _checks(SOURCES, KINDS)
