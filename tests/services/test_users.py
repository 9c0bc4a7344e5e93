"""Accounts: validation, uniqueness, the first admin."""

from __future__ import annotations

import stat

import pytest

from secdash.services.errors import Conflict, Invalid
from secdash.services.identity import users
from tests.factories import make_user


@pytest.mark.parametrize(
    ("email", "password", "role", "message"),
    [
        ("not-an-email", "long-enough-password", "limited", "email"),
        ("a@example.com", "short", "limited", "password"),
        ("a@example.com", "long-enough-password", "root", "role"),
    ],
)
async def test_bad_input_is_refused_and_nothing_is_written(session, email, password, role, message):
    with pytest.raises(Invalid) as error:
        await users.create_user(session=session, email=email, password=password, role=role)
    assert message in error.value.message
    assert await users.count_users(session=session) == 0


async def test_duplicate_email_conflicts_case_insensitively(session):
    await make_user(session, "ops@example.com")
    with pytest.raises(Conflict):
        await make_user(session, "OPS@example.com")


async def test_first_admin_uses_configured_credentials(session, settings, monkeypatch):
    monkeypatch.setattr(settings, "ADMIN_EMAIL", "boss@example.com")
    monkeypatch.setattr(settings, "ADMIN_PASSWORD", "configured-password-123")
    created = await users.ensure_first_admin(session=session, settings=settings)
    assert created.email == "boss@example.com" and created.generated_password is None
    assert await users.ensure_first_admin(session=session, settings=settings) is None


async def test_first_admin_gets_a_generated_password_stored_privately(session, settings, monkeypatch, tmp_path):
    monkeypatch.setattr(settings, "DATA_DIR", tmp_path)
    monkeypatch.setattr(settings, "ADMIN_EMAIL", "")
    monkeypatch.setattr(settings, "ADMIN_PASSWORD", "")
    created = await users.ensure_first_admin(session=session, settings=settings)
    assert created.email == users.DEFAULT_ADMIN_EMAIL
    stored = tmp_path / "admin-password.txt"
    assert stored.read_text() == created.generated_password
    assert stat.S_IMODE(stored.stat().st_mode) == 0o600
    admin = await users.get_by_email(session=session, email=users.DEFAULT_ADMIN_EMAIL)
    assert admin.role == "admin"
