"""`python -m secdash`: passwords come from stdin, never argv; changes are audited."""

from __future__ import annotations

import io
import os
import stat
import subprocess
import sys

from secdash.core.config import read_or_create_secret_file
from secdash.services.identity import users


def _run_cli(*args: str, stdin: str = "") -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "secdash", *args],
        input=stdin,
        capture_output=True,
        text=True,
        env=os.environ.copy(),
        timeout=120,
    )


async def test_create_list_set_password_and_deactivate(session):
    created = _run_cli("users", "create", "cli@example.com", "--role", "admin", stdin="cli-password-12345\n")
    assert created.returncode == 0, created.stderr
    assert "cli-password-12345" not in created.stdout + created.stderr
    listed = _run_cli("users", "list")
    assert "cli@example.com\tadmin\tactive" in listed.stdout
    assert _run_cli("users", "set-password", "cli@example.com", stdin="another-password-99\n").returncode == 0
    assert _run_cli("users", "deactivate", "cli@example.com").returncode == 0
    user = await users.get_by_email(session=session, email="cli@example.com")
    await session.refresh(user)
    assert not user.is_active


def test_bad_password_is_refused_with_a_clear_message(session):
    result = _run_cli("users", "create", "weak@example.com", stdin="short\n")
    assert result.returncode == 1
    assert "password must be at least 12 characters" in result.stderr


def test_cli_has_no_password_argument():
    from secdash.cli import build_parser

    help_text = io.StringIO()
    parser = build_parser()
    for action in parser._subparsers._group_actions[0].choices["users"]._subparsers._group_actions[0].choices.values():
        help_text.write(action.format_help())
    assert "--password" not in help_text.getvalue()


def test_generated_secret_file_is_private_and_stable(tmp_path):
    path = tmp_path / "secret_key"
    first = read_or_create_secret_file(path, lambda: "one")
    second = read_or_create_secret_file(path, lambda: "two")
    assert first == second == "one"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
