"""Sessions: an idle session ends, stale rows are deleted, the signing key is long enough, and a
password typed into the e-mail field is never stored."""

from __future__ import annotations

from datetime import timedelta

import pytest
from pydantic import ValidationError
from sqlalchemy import text
from sqlmodel import select

from secdash.core.config import Settings
from secdash.core.security import decode_access_token
from secdash.models import AuthSession, LoginAttempt, User, as_utc, utcnow
from secdash.services.errors import AuthFailed, RateLimited
from secdash.services.identity import auth, sessions
from tests.factories import DEFAULT_PASSWORD, make_user

EMAIL = "ops@example.com"


class Clock:
    """The sessions service's idea of now, moved by the test instead of by waiting."""

    def __init__(self) -> None:
        self.now = utcnow()

    def __call__(self):
        return self.now

    def advance(self, **delta) -> None:
        self.now += timedelta(**delta)


@pytest.fixture
def clock(monkeypatch) -> Clock:
    fake = Clock()
    monkeypatch.setattr(sessions, "utcnow", fake)
    return fake


async def _sign_in(session, settings, ip: str = "198.51.100.20") -> str:
    result = await auth.login(session=session, settings=settings, email=EMAIL, password=DEFAULT_PASSWORD, ip=ip)
    return result.token


async def _signed_in(session, settings, token: str, *, touch: bool = True) -> bool:
    try:
        await auth.authenticate(session=session, settings=settings, token=token, touch=touch)
    except AuthFailed:
        return False
    return True


# --- Idle timeout --------------------------------------------------------------------------------


def test_idle_timeout_default():
    assert Settings().IDLE_TIMEOUT_MINUTES == 30


async def test_an_idle_session_ends(session, settings, clock):
    await make_user(session, EMAIL)
    token = await _sign_in(session, settings)
    clock.advance(minutes=settings.IDLE_TIMEOUT_MINUTES + 1)
    assert not await _signed_in(session, settings, token)
    # Refused, it is not refreshed either: the next visit is refused too.
    assert not await _signed_in(session, settings, token)


async def test_activity_keeps_a_session_alive(session, settings, clock):
    await make_user(session, EMAIL)
    token = await _sign_in(session, settings)
    for _ in range(4):  # two hours of use, each request well inside the idle timeout
        clock.advance(minutes=settings.IDLE_TIMEOUT_MINUTES - 1)
        assert await _signed_in(session, settings, token)


async def test_background_checks_do_not_keep_a_session_alive(session, settings, clock):
    """A dashboard left open (live updates call with touch=False) still times out."""
    await make_user(session, EMAIL)
    token = await _sign_in(session, settings)
    for _ in range(int(settings.IDLE_TIMEOUT_MINUTES) - 1):
        clock.advance(minutes=1)
        assert await _signed_in(session, settings, token, touch=False)
    clock.advance(minutes=2)
    assert not await _signed_in(session, settings, token, touch=False)
    assert not await _signed_in(session, settings, token)


async def test_last_seen_is_written_at_most_once_a_minute(session, settings, clock):
    await make_user(session, EMAIL)
    token = await _sign_in(session, settings)
    sid = decode_access_token(token, secret=settings.secret_key()).session_id
    row = await session.get(AuthSession, sid)
    opened = as_utc(row.last_seen_at)
    clock.advance(seconds=30)
    assert await _signed_in(session, settings, token)
    await session.refresh(row)
    assert as_utc(row.last_seen_at) == opened
    clock.advance(seconds=60)
    assert await _signed_in(session, settings, token)
    await session.refresh(row)
    assert as_utc(row.last_seen_at) > opened


async def test_logout_of_an_idle_session_is_no_active_session(session, settings, clock):
    await make_user(session, EMAIL)
    token = await _sign_in(session, settings)
    clock.advance(minutes=settings.IDLE_TIMEOUT_MINUTES + 1)
    assert not await auth.logout(session=session, settings=settings, token=token)


# --- Purging stale rows --------------------------------------------------------------------------


async def _session_ids(session) -> set[str]:
    return set((await session.exec(select(AuthSession.id))).all())


async def _age_session(session, sid: str, **changes) -> None:
    row = await session.get(AuthSession, sid)
    for name, value in changes.items():
        setattr(row, name, value)
    session.add(row)
    await session.commit()


async def _stale_rows(session, settings) -> dict[str, str]:
    """One session of each kind plus old and recent login attempts; returns the session ids by kind."""
    user = await make_user(session, EMAIL)
    now = utcnow()
    kinds = {}
    for kind in ("active", "revoked", "expired", "idle"):
        row, _token = await sessions.open_session(
            session=session,
            user=await session.get(User, user.id),
            ttl_seconds=3600,
            secret=settings.secret_key(),
            ip="",
            user_agent="",
        )
        kinds[kind] = row.id
    await session.commit()
    await _age_session(session, kinds["revoked"], revoked_at=now)
    await _age_session(session, kinds["expired"], expires_at=now - timedelta(seconds=1))
    await _age_session(session, kinds["idle"], last_seen_at=now - timedelta(minutes=settings.IDLE_TIMEOUT_MINUTES + 1))
    longest = max(
        settings.LOGIN_ACCOUNT_AND_IP_WINDOW_SECONDS,
        settings.LOGIN_IP_WINDOW_SECONDS,
        settings.LOGIN_ACCOUNT_WINDOW_SECONDS,
    )
    session.add(LoginAttempt(email="old@example.com", ip="192.0.2.1", attempted_at=now - timedelta(seconds=longest + 5)))
    session.add(LoginAttempt(email="recent@example.com", ip="192.0.2.1", attempted_at=now - timedelta(seconds=10)))
    await session.commit()
    return kinds


async def _attempt_emails(session) -> set[str]:
    return set((await session.exec(select(LoginAttempt.email))).all())


async def test_purge_deletes_revoked_expired_and_idle_sessions_and_old_attempts(session, settings):
    kinds = await _stale_rows(session, settings)
    counts = await auth.purge_stale(session=session, settings=settings)
    assert (counts.sessions, counts.login_attempts) == (3, 1)
    assert await _session_ids(session) == {kinds["active"]}
    assert await _attempt_emails(session) == {"recent@example.com"}
    again = await auth.purge_stale(session=session, settings=settings)
    assert (again.sessions, again.login_attempts) == (0, 0)


async def test_purge_in_bounded_batches(session, settings):
    await _stale_rows(session, settings)
    first = await auth.purge_stale(session=session, settings=settings, limit=2)
    assert first.sessions == 2
    second = await auth.purge_stale(session=session, settings=settings, limit=2)
    assert second.sessions == 1


async def test_a_successful_login_purges_stale_rows(session, settings):
    kinds = await _stale_rows(session, settings)
    await _sign_in(session, settings)
    remaining = await _session_ids(session)
    assert kinds["active"] in remaining
    assert not remaining & {kinds["revoked"], kinds["expired"], kinds["idle"]}
    assert "old@example.com" not in await _attempt_emails(session)


# --- Signing key ---------------------------------------------------------------------------------


@pytest.mark.parametrize("key", ["short", "x" * 31])
def test_a_short_secret_key_is_refused(monkeypatch, key):
    monkeypatch.setenv("SECDASH_SECRET_KEY", key)
    with pytest.raises(ValidationError, match="at least 32 characters"):
        Settings()


def test_a_32_character_secret_key_is_accepted(monkeypatch):
    monkeypatch.setenv("SECDASH_SECRET_KEY", "k" * 32)
    assert Settings().secret_key() == "k" * 32


# --- What a failed login stores ------------------------------------------------------------------

TYPED_PASSWORD = "Tr0ub4dor&3-my-real-password"


async def _stored_text(session) -> str:
    """Everything the audit trail and the attempt table hold, as raw text."""
    rows = [
        *(await session.exec(text("SELECT description, CAST(metadata AS TEXT) FROM history_logs"))).all(),
        *(await session.exec(text("SELECT email, ip FROM login_attempts"))).all(),
    ]
    return "\n".join(str(value) for row in rows for value in row)


async def test_a_password_typed_into_the_email_field_is_never_stored(session, settings):
    await make_user(session, EMAIL)
    for _ in range(settings.LOGIN_MAX_FAILURES_PER_ACCOUNT_AND_IP):
        with pytest.raises(AuthFailed):
            await auth.login(session=session, settings=settings, email=TYPED_PASSWORD, password="x", ip="192.0.2.1")
    # The typed value is still counted: the same text from the same address is locked out.
    with pytest.raises(RateLimited):
        await auth.login(session=session, settings=settings, email=TYPED_PASSWORD, password="x", ip="192.0.2.1")
    stored = await _stored_text(session)
    assert TYPED_PASSWORD not in stored
    assert TYPED_PASSWORD.lower() not in stored
    assert "(not an e-mail address)" in stored
    # An e-mail address is kept as typed, so admins can see who was targeted.
    with pytest.raises(AuthFailed):
        await auth.login(session=session, settings=settings, email=EMAIL, password="wrong", ip="192.0.2.1")
    assert f"Failed login for {EMAIL}" in await _stored_text(session)
