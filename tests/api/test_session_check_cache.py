"""API reads accept a session check a few seconds old (one SELECT per token per window, not one per request);
writes check every time; a revocation elsewhere reaches reads within VERIFY_CACHE_SECONDS, a logout here at once."""

from __future__ import annotations

import pytest
from sqlalchemy import event

from secdash.api import deps
from secdash.core.db import get_engine
from secdash.services.identity import sessions
from secdash.services.identity.verified_sessions import VERIFY_CACHE_SECONDS, verified_sessions
from tests.api.conftest import signed_in


@pytest.fixture
def clock(monkeypatch):
    now = [1000.0]
    monkeypatch.setattr(deps, "clock", lambda: now[0])
    verified_sessions.clear()
    yield now
    verified_sessions.clear()


@pytest.fixture
def session_reads():
    """How many statements read the auth_sessions table."""
    seen: list[str] = []

    def count(conn, cursor, statement, *args):
        if "auth_sessions" in statement and statement.lstrip().upper().startswith("SELECT"):
            seen.append(statement)

    engine = get_engine().sync_engine
    event.listen(engine, "before_cursor_execute", count)
    yield seen
    event.remove(engine, "before_cursor_execute", count)


async def _revoke_elsewhere(session, email: str) -> None:
    """What a logout on another worker, or a password change, does: the session row is revoked."""
    from sqlmodel import select

    from secdash.models import AuthSession, User

    user = (await session.exec(select(User).where(User.email == email))).one()
    for row in (await session.exec(select(AuthSession).where(AuthSession.user_id == user.id))).all():
        await sessions.revoke_session(session=session, session_id=row.id)
    await session.commit()


async def test_reads_cost_one_session_check_per_window(client, session, clock, session_reads):
    admin = await signed_in(client, session, "root@example.com", "admin")
    session_reads.clear()
    for _ in range(10):
        assert (await client.get("/api/history-logs?limit=1", headers=admin)).status_code == 200
    assert len(session_reads) == 1
    clock[0] += VERIFY_CACHE_SECONDS
    assert (await client.get("/api/history-logs?limit=1", headers=admin)).status_code == 200
    assert len(session_reads) == 2


async def test_a_revocation_elsewhere_stops_writes_at_once_and_reads_within_the_window(client, session, clock):
    admin = await signed_in(client, session, "root@example.com", "admin")
    assert (await client.get("/api/sites", headers=admin)).status_code == 200
    await _revoke_elsewhere(session, "root@example.com")
    write = await client.post("/api/sites", json={"name": "x", "url": "https://example.com/"}, headers=admin)
    assert write.status_code == 401
    clock[0] += VERIFY_CACHE_SECONDS - 0.5
    # inside the window a read may still pass (the documented trade-off); once it has passed, it is refused
    clock[0] += 0.5
    assert (await client.get("/api/sites", headers=admin)).status_code == 401


async def test_a_logout_here_refuses_the_token_at_once(client, session, clock):
    admin = await signed_in(client, session, "root@example.com", "admin")
    assert (await client.get("/api/auth/user", headers=admin)).status_code == 200
    assert (await client.post("/api/auth/logout", headers=admin)).status_code == 200
    assert (await client.get("/api/auth/user", headers=admin)).status_code == 401
