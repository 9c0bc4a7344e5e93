"""Signing in: one generic failure, lockouts after repeated failures, an audit entry for each outcome."""

from __future__ import annotations

import pytest
from sqlmodel import select

from secdash.models import HistoryLog, Role, UserPublic
from secdash.services import audit
from secdash.services.errors import AuthFailed, Invalid, RateLimited
from secdash.services.identity import auth, users
from tests.factories import DEFAULT_PASSWORD, make_user

ADMIN_VIEW = UserPublic(id=0, email="auditor@example.com", role=Role.admin.value, firstName="A")


async def _actions(session) -> list[str]:
    return [log.action for log in await audit.list_logs(session=session, viewer=ADMIN_VIEW)]


async def test_login_returns_token_and_public_user(session, settings):
    await make_user(session, "Ops@Example.com", role="admin")
    result = await auth.login(session=session, settings=settings, email=" ops@example.com ", password=DEFAULT_PASSWORD)
    assert result.user.email == "ops@example.com"
    assert result.user.role == "admin"
    assert result.token.count(".") == 2
    assert (await _actions(session))[0] == "Login succeeded"


async def test_wrong_password_and_unknown_email_fail_alike(session, settings):
    await make_user(session, "ops@example.com")
    with pytest.raises(AuthFailed) as wrong:
        await auth.login(session=session, settings=settings, email="ops@example.com", password="not-the-password")
    with pytest.raises(AuthFailed) as unknown:
        await auth.login(session=session, settings=settings, email="ghost@example.com", password="not-the-password")
    assert wrong.value.message == unknown.value.message == "Invalid credentials"
    assert (await _actions(session))[:2] == ["Login failed", "Login failed"]


async def test_inactive_account_cannot_sign_in(session, settings):
    await make_user(session, "ops@example.com")
    await users.deactivate_user(session=session, email="ops@example.com")
    with pytest.raises(AuthFailed):
        await auth.login(session=session, settings=settings, email="ops@example.com", password=DEFAULT_PASSWORD)


@pytest.mark.parametrize(("email", "password", "field"), [("", "x", "email"), ("a@b.com", "", "password")])
async def test_blank_fields_are_invalid_and_name_the_field(session, settings, email, password, field):
    with pytest.raises(Invalid) as error:
        await auth.login(session=session, settings=settings, email=email, password=password)
    assert field in error.value.message


async def test_five_failures_lock_the_account_from_that_address_even_for_the_right_password(session, settings):
    await make_user(session, "ops@example.com")
    for _ in range(settings.LOGIN_MAX_FAILURES_PER_ACCOUNT_AND_IP):
        with pytest.raises(AuthFailed):
            await auth.login(session=session, settings=settings, email="ops@example.com", password="wrong-password")
    with pytest.raises(RateLimited) as locked:
        await auth.login(session=session, settings=settings, email="ops@example.com", password=DEFAULT_PASSWORD)
    assert 1 <= locked.value.retry_after <= settings.LOGIN_ACCOUNT_AND_IP_WINDOW_SECONDS
    assert f"{locked.value.retry_after} seconds" in locked.value.message
    lockouts = (await session.exec(select(HistoryLog).where(HistoryLog.action == "Login locked out"))).all()
    assert len(lockouts) == 1
    assert lockouts[0].severity == "critical"


async def test_ip_lockout_after_twenty_failures_across_emails(session, settings):
    for n in range(settings.LOGIN_MAX_FAILURES_PER_IP):
        with pytest.raises(AuthFailed):
            await auth.login(session=session, settings=settings, email=f"u{n}@example.com", password="x", ip="203.0.113.9")
    with pytest.raises(RateLimited):
        await auth.login(session=session, settings=settings, email="fresh@example.com", password="x", ip="203.0.113.9")
    # Another client is not affected.
    with pytest.raises(AuthFailed):
        await auth.login(session=session, settings=settings, email="fresh@example.com", password="x", ip="203.0.113.10")


async def test_success_clears_earlier_failures(session, settings):
    await make_user(session, "ops@example.com")
    for _ in range(settings.LOGIN_MAX_FAILURES_PER_ACCOUNT_AND_IP - 1):
        with pytest.raises(AuthFailed):
            await auth.login(session=session, settings=settings, email="ops@example.com", password="wrong-password")
    await auth.login(session=session, settings=settings, email="ops@example.com", password=DEFAULT_PASSWORD)
    with pytest.raises(AuthFailed):  # a fresh budget: this failure does not lock
        await auth.login(session=session, settings=settings, email="ops@example.com", password="wrong-password")
    await auth.login(session=session, settings=settings, email="ops@example.com", password=DEFAULT_PASSWORD)


async def test_logout_revokes_and_is_audited(session, settings):
    await make_user(session, "ops@example.com")
    result = await auth.login(session=session, settings=settings, email="ops@example.com", password=DEFAULT_PASSWORD)
    assert await auth.logout(session=session, settings=settings, token=result.token)
    assert not await auth.logout(session=session, settings=settings, token=result.token)
    assert (await _actions(session))[0] == "Logout"


async def test_password_change_revokes_every_session(session, settings):
    await make_user(session, "ops@example.com")
    tokens = [
        (await auth.login(session=session, settings=settings, email="ops@example.com", password=DEFAULT_PASSWORD)).token
        for _ in range(2)
    ]
    await users.set_password(session=session, email="ops@example.com", password="a-brand-new-password")
    for token in tokens:
        with pytest.raises(AuthFailed):
            await auth.authenticate(session=session, settings=settings, token=token)
    actions = await _actions(session)
    assert "Password changed" in actions and "Session revoked" in actions
    await auth.login(session=session, settings=settings, email="ops@example.com", password="a-brand-new-password")
