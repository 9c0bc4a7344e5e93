"""Status and type columns are enums in the models and in the database: rows read back as the
StrEnum members, Python refuses an unknown value before it is sent, the database refuses one
written around the models (CHECK constraints, SQLite and PostgreSQL alike), and the migration
gives older rows with another value the column's safe default."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys

import pytest
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import text
from sqlalchemy.exc import IntegrityError, StatementError
from sqlmodel import SQLModel, select

from secdash.core import data_dir
from secdash.core.config import PROJECT_ROOT
from secdash.core.db import get_engine
from secdash.models import (
    ActivityType,
    AgentRecord,
    AgentStatus,
    AiActivity,
    ChatRole,
    ChatSurface,
    DefenseChatMessage,
    EventSeverity,
    EventSource,
    EventType,
    HistoryLog,
    LogCategory,
    LogSeverity,
    Role,
    SecurityEvent,
    Site,
    SiteStatus,
    ThreatLevel,
    User,
)
from tests.factories import make_user


async def test_rows_read_back_as_enum_members(session):
    await make_user(session, "ops@example.com", role="admin")
    session.add(SecurityEvent(event_type="attack_detected", severity="high", description="flood", source="drill"))
    session.add(HistoryLog(category="security", action="Probe", severity="warning"))
    session.add(Site(name="Blog", domain="example.com", url="https://example.com/"))
    session.add(AiActivity(activity_type="block", target="Tour", description="blocked"))
    await session.commit()
    session.expunge_all()
    user = (await session.exec(select(User))).one()
    event = (await session.exec(select(SecurityEvent))).one()
    log = (await session.exec(select(HistoryLog).where(HistoryLog.action == "Probe"))).one()
    site = (await session.exec(select(Site))).one()
    activity = (await session.exec(select(AiActivity))).one()
    assert user.role is Role.admin
    assert (event.event_type, event.severity, event.source) == (EventType.attack_detected, EventSeverity.high, EventSource.drill)
    assert isinstance(event.event_type, EventType)
    assert (log.category, log.severity) == (LogCategory.security, LogSeverity.warning)
    assert site.status is SiteStatus.warning  # the default: CHECKING until the first probe
    assert activity.activity_type is ActivityType.block
    assert event.severity == "high"  # still equal to its text


async def test_chat_and_agent_values_read_back_as_enum_members(session):
    user = await make_user(session, "ops@example.com")
    session.add(DefenseChatMessage(user_id=user.id, surface="center", role="assistant", content="hi", threat_level="high"))
    session.add(DefenseChatMessage(user_id=user.id, role="user", content="hello"))
    session.add(AgentRecord(id="gem", agent_name="Gem Defender", status="fighting"))
    await session.commit()
    session.expunge_all()
    reply, question = (await session.exec(select(DefenseChatMessage).order_by(DefenseChatMessage.id))).all()
    assert (reply.surface, reply.role, reply.threat_level) == (ChatSurface.center, ChatRole.assistant, ThreatLevel.high)
    assert (question.surface, question.threat_level) == (ChatSurface.widget, None)
    assert (await session.get(AgentRecord, "gem")).status is AgentStatus.fighting


@pytest.mark.parametrize(
    ("row", "column"),
    [
        (lambda: SecurityEvent(event_type="meteor_strike", severity="high", description="x"), "event_type"),
        (lambda: SecurityEvent(event_type="attack_detected", severity="apocalyptic", description="x"), "severity"),
        (lambda: HistoryLog(category="gossip", action="x"), "category"),
        (lambda: Site(name="Blog", domain="example.com", url="https://example.com/", status="fine"), "status"),
    ],
)
async def test_python_refuses_an_unknown_value(session, row, column):
    session.add(row())
    with pytest.raises(StatementError, match="is not among the defined enum values"):
        await session.commit()


@pytest.mark.parametrize(
    ("constraint", "statement"),
    [
        (
            "ck_users_role",
            "INSERT INTO users (email, password_hash, role, first_name, is_active, created_at) "
            "VALUES ('x@example.com', 'h', 'root', '', true, CURRENT_TIMESTAMP)",
        ),
        (
            "ck_history_logs_severity",
            "INSERT INTO history_logs (category, action, severity, description, timestamp) "
            "VALUES ('system', 'x', 'fatal', '', CURRENT_TIMESTAMP)",
        ),
        (
            "ck_sites_status",
            "INSERT INTO sites (name, domain, url, status, is_demo, allow_private, created_at) "
            "VALUES ('Blog', 'example.com', 'https://example.com/', 'fine', false, false, CURRENT_TIMESTAMP)",
        ),
        (
            "ck_security_events_source",
            "INSERT INTO security_events "
            "(created_at, event_type, severity, description, resolved, source) "
            "VALUES (CURRENT_TIMESTAMP, 'attack_detected', 'high', 'x', false, 'rumour')",
        ),
        (
            "ck_ai_activities_activity_type",
            "INSERT INTO ai_activities "
            "(activity_type, target, description, status, simulated, created_at) "
            "VALUES ('dance', 'x', 'x', 'completed', false, CURRENT_TIMESTAMP)",
        ),
        (
            "ck_agent_records_status",
            "INSERT INTO agent_records (id, agent_name, status, updated_at) VALUES ('x', 'X', 'sleeping', CURRENT_TIMESTAMP)",
        ),
        (
            "ck_defense_chat_messages_role",
            "INSERT INTO defense_chat_messages "
            "(user_id, surface, agent_id, role, content, created_at) "
            "VALUES ((SELECT min(id) FROM users), 'widget', 'general', 'system', 'x', CURRENT_TIMESTAMP)",
        ),
        (
            "ck_defense_chat_messages_threat_level",
            "INSERT INTO defense_chat_messages "
            "(user_id, surface, agent_id, role, content, threat_level, created_at) "
            "VALUES ((SELECT min(id) FROM users), 'widget', 'general', 'user', 'x', 'extreme', CURRENT_TIMESTAMP)",
        ),
    ],
)
async def test_the_database_refuses_an_unknown_value(session, constraint, statement):
    await make_user(session, "ops@example.com")
    with pytest.raises(IntegrityError, match=constraint):  # the CHECK, not another constraint
        await session.exec(text(statement))  # type: ignore[call-overload]
    await session.rollback()


async def test_the_models_and_the_migrations_agree(migrated_db):
    """What alembic would generate from the models against the migrated database: nothing."""

    def differences(connection):
        context = MigrationContext.configure(
            connection, opts={"compare_type": True, "include_object": data_dir.compared_by_autogenerate}
        )
        return compare_metadata(context, SQLModel.metadata)

    async with get_engine().connect() as connection:
        assert await connection.run_sync(differences) == []


def _before_the_checks() -> str:
    """The revision before the CHECK constraints (whatever it is re-pointed to)."""
    from alembic.config import Config
    from alembic.script import ScriptDirectory

    script = ScriptDirectory.from_config(Config(str(PROJECT_ROOT / "alembic.ini")))
    previous = script.get_revision("e4c9a7b1d2f3").down_revision
    assert isinstance(previous, str)
    return previous


def _alembic(env: dict[str, str], *args: str) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "alembic", *args], env=env, cwd=PROJECT_ROOT, capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stderr


def test_older_rows_with_other_values_get_the_safe_default(tmp_path):
    env = {**os.environ, "SECDASH_DATA_DIR": str(tmp_path), "SECDASH_DATABASE_URL": f"sqlite:///{tmp_path / 'old.db'}"}
    before = _before_the_checks()
    _alembic(env, "upgrade", before)
    with sqlite3.connect(tmp_path / "old.db") as db:
        db.execute(
            "INSERT INTO users (email, password_hash, role, first_name, is_active, created_at) VALUES "
            "('a@example.com', 'h', 'superuser', '', 1, '2026-11-01 00:00:00')"
        )
        db.execute(
            "INSERT INTO history_logs (category, action, severity, description, timestamp) VALUES "
            "('misc', 'x', 'debug', '', '2026-11-01 00:00:00')"
        )
        db.execute(
            "INSERT INTO sites (name, domain, url, status, is_demo, allow_private, created_at) VALUES "
            "('Blog', 'example.com', 'https://example.com/', 'unknown', 0, 0, '2026-11-01 00:00:00')"
        )
        db.execute(
            "INSERT INTO security_events (created_at, event_type, severity, description, resolved, source) "
            "VALUES ('2026-11-01 00:00:00', 'attack_detected', 'critical', 'x', 0, 'manual')"
        )
    _alembic(env, "upgrade", "head")
    with sqlite3.connect(tmp_path / "old.db") as db:
        assert db.execute("SELECT role FROM users").fetchall() == [("limited",)]
        assert db.execute("SELECT category, severity FROM history_logs").fetchall() == [("system", "info")]
        assert db.execute("SELECT status FROM sites").fetchall() == [("warning",)]
        assert db.execute("SELECT severity, source FROM security_events").fetchall() == [("medium", "monitor")]
        with pytest.raises(sqlite3.IntegrityError):
            db.execute("UPDATE sites SET status = 'fine'")
    _alembic(env, "downgrade", before)
    with sqlite3.connect(tmp_path / "old.db") as db:
        db.execute("UPDATE sites SET status = 'fine'")  # no constraint any more
        db.execute("UPDATE sites SET status = 'secure'")
    _alembic(env, "upgrade", "head")
