"""login attempts admitted flag and purge indexes; scrub typed text that is no e-mail address

Revision ID: d56fbec1f9a1
Revises: d64670714bad
Create Date: 2026-11-22 15:47:16.595792

Failed logins used to store whatever was typed in the e-mail field, passwords typed there by
mistake included. This revision removes such values: attempts with one are deleted (they only feed
short lockout windows), audit entries about them show a marker instead.
"""
from typing import Sequence, Union

from alembic import op
import sqlalchemy as sa
import sqlmodel  # noqa: F401
from email_validator import EmailNotValidError, validate_email


# revision identifiers, used by Alembic.
revision: str = 'd56fbec1f9a1'
down_revision: Union[str, Sequence[str], None] = 'd64670714bad'
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None

NOT_AN_EMAIL = "(not an e-mail address)"
_attempts = sa.table("login_attempts", sa.column("id", sa.Integer), sa.column("email", sa.String))
_users = sa.table("users", sa.column("email", sa.String))
_logs = sa.table(
    "history_logs", sa.column("id", sa.Integer), sa.column("action", sa.String),
    sa.column("description", sa.String), sa.column("metadata", sa.JSON),
)


def _looks_like_email(value: str, known: set[str]) -> bool:
    if value in known:
        return True
    try:
        validate_email(value, check_deliverability=False, test_environment=True)
    except EmailNotValidError:
        return False
    return True


def _scrub(connection) -> None:
    known = {row.email for row in connection.execute(sa.select(_users.c.email))}
    for row in connection.execute(sa.select(_attempts.c.id, _attempts.c.email)).fetchall():
        if not _looks_like_email(row.email, known):
            connection.execute(sa.delete(_attempts).where(_attempts.c.id == row.id))
    entries = connection.execute(
        sa.select(_logs.c.id, _logs.c.description, _logs.c.metadata).where(
            _logs.c.action.in_(["Login failed", "Login locked out"])
        )
    ).fetchall()
    for entry in entries:
        details = dict(entry.metadata or {})
        typed = details.get("email")
        if not isinstance(typed, str) or not typed or _looks_like_email(typed, known):
            continue
        details["email"] = NOT_AN_EMAIL
        connection.execute(
            sa.update(_logs).where(_logs.c.id == entry.id).values(
                description=(entry.description or "").replace(typed, NOT_AN_EMAIL), metadata=details
            )
        )


def upgrade() -> None:
    """Upgrade schema."""
    with op.batch_alter_table('login_attempts', schema=None) as batch_op:
        batch_op.add_column(sa.Column('admitted', sa.Boolean(), nullable=False, server_default=sa.false()))
        batch_op.create_index('ix_login_attempts_attempted_at', ['attempted_at'], unique=False)
        batch_op.create_index('ix_login_attempts_email_ip_at', ['email', 'ip', 'attempted_at'], unique=False)
    # Rows from before this revision are failures that passed the old checks: they count.
    op.execute(sa.text("UPDATE login_attempts SET admitted = :yes").bindparams(yes=True))
    _scrub(op.get_bind())


def downgrade() -> None:
    """Downgrade schema (the scrubbed text is gone for good)."""
    with op.batch_alter_table('login_attempts', schema=None) as batch_op:
        batch_op.drop_index('ix_login_attempts_email_ip_at')
        batch_op.drop_index('ix_login_attempts_attempted_at')
        batch_op.drop_column('admitted')
