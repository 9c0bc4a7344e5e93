"""apprise URL parameters must not make the server open local files (issue 21, item 7).

`fcm://...?keyfile=/etc/passwd` was accepted and the test send tried to read the file. Parameters that apprise
reads as a local path or file URL (FCM's and Vapid's keyfile, Vapid's subfile, the template of Discord, Slack,
Telegram, Workflows..., attach) are refused with a clear message, whatever the channel allows; a channel saved
before the rule is refused at send time without the file being opened. Nothing leaves the machine: the refused
channels are never sent, and the old one fails before any connection.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from secdash.models.alerting import NotificationChannel
from secdash.services.alerting import channels, deliveries, secret_box
from secdash.services.errors import Invalid
from tests.factories import make_user

_opened: list[str] = []
_watched: set[str] = set()


def _audit(event: str, args: tuple) -> None:
    if event == "open" and args and str(args[0]) in _watched:
        _opened.append(str(args[0]))


sys.addaudithook(_audit)  # hooks cannot be removed: it only records the paths a test watches


@pytest.fixture
def secret_file(tmp_path: Path):
    path = tmp_path / "service-account.json"
    path.write_text('{"type": "service_account", "private_key": "SERVER-SECRET"}')
    _watched.add(str(path))
    _opened.clear()
    yield str(path)
    _watched.discard(str(path))


FILE_URLS = [
    ("fcm://project/device?keyfile={path}", "keyfile"),
    ("fcm://project/device?keyfile=file://{path}", "keyfile"),
    ("fcm://project/device?KeyFile={path}", "keyfile"),
    ("discord://1234567890/webhooktokenwebhooktoken?template={path}", "template"),
    ("slack://T1AAAAAAA/B1BBBBBBB/C1CCCCCCCCCCCCCCCCCCC?template={path}", "template"),
    ("tgram://123456789:abcdefg_hijklmnop/12345?template={path}", "template"),
    ("guilded://1234567890/webhooktokenwebhooktoken?template=http://127.0.0.1:9/t.json", "template"),
    ("vapid://user@example.com/endpoint?subfile={path}", "subfile"),
    ("vapid://user@example.com/endpoint?keyfile={path}", "keyfile"),
    ("json://hooks.example.com/x?attach={path}", "attach"),
]


@pytest.mark.parametrize(("url", "name"), FILE_URLS, ids=[f"{u.split(':', 1)[0]}-{n}-{i}" for i, (u, n) in enumerate(FILE_URLS)])
@pytest.mark.parametrize("allow_private", [False, True])
async def test_file_path_parameters_are_refused_with_a_clear_message(session, secret_file, url, name, allow_private):
    admin = await make_user(session, "root@example.com", role="admin")
    with pytest.raises(
        Invalid,
        match=rf"url: the {name}= parameter makes the server read a local file or fetch a "
        "URL of its own choosing",
    ):
        await channels.create_channel(
            session=session, actor=admin, name="X", url=url.format(path=secret_file), allow_private=allow_private
        )
    assert _opened == []


async def test_a_channel_saved_before_the_rule_never_opens_its_keyfile(session, secret_file):
    admin = await make_user(session, "root@example.com", role="admin")
    url = f"fcm://project/device?keyfile={secret_file}"
    row = NotificationChannel(
        name="Old FCM",
        service="Firebase Cloud Messaging",
        url_encrypted=secret_box.seal(url),
        url_masked="fcm://****/****",
        enabled=True,
        allow_private=False,
    )
    session.add(row)
    await session.commit()
    sent = await deliveries.send_test(session=session, actor=admin, channel_id=row.id)
    assert sent.outcome == "failed" and "keyfile=" in (sent.error or ""), sent.error
    assert _opened == []


async def test_a_template_that_is_a_name_not_a_file_is_kept(session):
    """WhatsApp's template= is the name of a message template at Meta: nothing is read, the channel is saved."""
    admin = await make_user(session, "root@example.com", role="admin")
    url = "whatsapp://tokentokentoken@1234567890/15551234567?template=order_update"
    assert (await channels.create_channel(session=session, actor=admin, name="WhatsApp", url=url)).id
