"""Limited users must not see channel secrets in History Logs (issue 21, item 8).

Channel add/change/delete/test entries (and rule changes) were system entries, visible to limited users, with
apprise's masked URL, which keeps webhook path tokens, user names and ntfy topics. Alerting entries are admin-only
(in the list, the counts, a search and as a paging cursor), and the masked URL (shown to admins in Settings and in
their History) hides path segments and user names. A database written before keeps its old entries hidden too.
"""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys

import pytest
from sqlmodel import select

from secdash.core.config import PROJECT_ROOT
from secdash.models import HistoryLog
from secdash.services import audit
from secdash.services.alerting import channels, deliveries, rules
from secdash.services.errors import Invalid
from tests.factories import make_user
from tests.support.notify_receivers import WebhookReceiver

SECRETS = ("PATHSECRET", "hookuser", "ntfyuser", "topicsecret", "Pw0rd")


@pytest.fixture
def webhook():
    receiver = WebhookReceiver()
    yield receiver
    receiver.close()


async def _alerting_trail(session, webhook):
    """Every kind of alerting entry, by an admin, with URLs that carry secrets in their path and user name."""
    admin = await make_user(session, "root@example.com", role="admin")
    limited = await make_user(session, "viewer@example.com")
    hook = await channels.create_channel(
        session=session,
        actor=admin,
        name="Ops hook",
        allow_private=True,
        url=f"json://hookuser:Pw0rd@127.0.0.1:{webhook.port}/hooks/PATHSECRET-abc123",
    )
    ntfy = await channels.create_channel(
        session=session, actor=admin, name="Ntfy", allow_private=True, url="ntfy://ntfyuser:Pw0rd@127.0.0.1:9/topicsecret"
    )
    await channels.update_channel(
        session=session,
        actor=admin,
        channel_id=ntfy.id,
        changes={"name": "Ntfy (renamed)", "url": "ntfy://ntfyuser:Pw0rd@127.0.0.1:9/topicsecret2"},
    )
    sent = await deliveries.send_test(session=session, actor=admin, channel_id=hook.id)
    assert sent.outcome == "sent" and webhook.received[0][0] == "/hooks/PATHSECRET-abc123"
    await rules.write(session=session, actor=admin, rules=None, settings={"reminderMinutes": 30})
    await channels.delete_channel(session=session, actor=admin, channel_id=ntfy.id)
    return admin, limited, hook


ACTIONS = {
    "Notification channel added",
    "Notification channel changed",
    "Notification channel deleted",
    "Notification test sent",
    "Notification rules changed",
}


async def test_a_limited_user_sees_no_alerting_entry_in_history(session, webhook):
    admin, limited, _ = await _alerting_trail(session, webhook)
    everything = await audit.list_logs(session=session, viewer=admin, limit=1000)
    assert ACTIONS <= {entry.action for entry in everything}
    for category in (None, "system"):
        seen = await audit.list_logs(session=session, viewer=limited, category=category, limit=1000)
        assert not {entry.action for entry in seen} & ACTIONS
    assert await audit.list_logs(session=session, viewer=limited, search="Notification") == []
    assert await audit.list_logs(session=session, viewer=limited, search="127.0.0.1") == []
    counts = await audit.count_by_category(session=session, viewer=limited)
    visible = await audit.list_logs(session=session, viewer=limited, limit=1000)
    assert counts["all"] == len(visible) and counts["system"] == 0
    hidden = next(entry for entry in everything if entry.action in ACTIONS)
    with pytest.raises(Invalid, match="before must be the id of a log entry"):  # no paging from a hidden entry
        await audit.list_logs(session=session, viewer=limited, before=hidden.id)


async def test_masked_urls_hide_path_segments_and_user_names(session, webhook):
    admin, _, hook = await _alerting_trail(session, webhook)
    listed = await channels.list_channels(session=session, viewer=admin)
    assert [channel.name for channel in listed] == ["Ops hook"]
    masked = listed[0].url
    assert masked.startswith("json://****:****@127.0.0.1:") and "/****/****" in masked, masked
    rows = list(await session.exec(select(HistoryLog)))
    shown = " ".join(f"{row.action} {row.description} {row.details}" for row in rows) + masked
    for secret in SECRETS:
        assert secret not in shown, secret


def _alembic(env: dict[str, str], *args: str) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "alembic", *args], env=env, cwd=PROJECT_ROOT, capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stderr


def test_alerting_entries_written_before_become_admin_only_and_masked(tmp_path):
    env = {**os.environ, "SECDASH_DATA_DIR": str(tmp_path), "SECDASH_DATABASE_URL": f"sqlite:///{tmp_path / 'old.db'}"}
    _alembic(env, "upgrade", "d7a1c4e9f2b6")  # the alerting tables, before this change
    old = "json://hookuser:****@hooks.example.com/hooks/PATHSECRET-abc123?method=POST&%2BX-Key=****"
    entry = (
        "INSERT INTO history_logs (category, action, severity, description, metadata, timestamp) VALUES "
        "('system', ?, 'info', ?, ?, '2026-11-20 00:00:00')"
    )
    with sqlite3.connect(tmp_path / "old.db") as db:
        db.execute(
            entry,
            (
                "Notification channel added",
                f"root@example.com added the JSON channel 'Ops' ({old})",
                f'{{"channelId": 1, "service": "JSON", "url": "{old}"}}',
            ),
        )
        db.execute(
            entry,
            (
                "Notification test sent",
                f"root@example.com sent a test to the channel 'Ops' ({old})",
                '{"channelId": 1, "deliveryId": 1}',
            ),
        )
        db.execute(entry, ("Site added", "root@example.com added the site 'Shop'", "{}"))
        db.execute(
            "INSERT INTO notification_channels (name, service, url_encrypted, url_masked, enabled, "
            "allow_private, created_at, updated_at) VALUES ('Ops', 'JSON', 'x', ?, 1, 0, '2026-11-20', "
            "'2026-11-20')",
            (old,),
        )
    _alembic(env, "upgrade", "head")
    with sqlite3.connect(tmp_path / "old.db") as db:
        rows = db.execute("SELECT action, admin_only, description, metadata FROM history_logs ORDER BY id").fetchall()
        (masked,) = db.execute("SELECT url_masked FROM notification_channels").fetchone()
    assert [(action, bool(admin_only)) for action, admin_only, _, _ in rows] == [
        ("Notification channel added", True),
        ("Notification test sent", True),
        ("Site added", False),
    ]
    text = " ".join(f"{description} {metadata}" for _, _, description, metadata in rows) + masked
    assert "PATHSECRET" not in text and "hookuser" not in text
    assert masked == "json://****:****@hooks.example.com/****/****?method=POST&%2BX-Key=****"
    _alembic(env, "downgrade", "d7a1c4e9f2b6")
    _alembic(env, "upgrade", "head")
