"""history logs: admin-only entries; alerting's entries written before become admin-only and their URLs masked

Limited users saw the alerting entries (system category) with apprise's masked URL, which keeps webhook path tokens,
user names and ntfy topics. The new admin_only column hides an entry from limited users; the alerting entries
already written are marked, and the URLs in them and the channels' stored masked URLs lose their user names, path
segments and non-plain query values (the masking of services/alerting/masking.py, copied here as it is today).

Revision ID: e9b3c6a1f4d2
Revises: d7a1c4e9f2b6
Create Date: 2026-11-25

"""

import re
from collections.abc import Sequence

import sqlalchemy as sa

from alembic import op

revision: str = "e9b3c6a1f4d2"
down_revision: str | Sequence[str] | None = "d7a1c4e9f2b6"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

ALERTING_ACTIONS = ("Notification channel added", "Notification channel changed", "Notification channel deleted",
                    "Notification test sent", "Notification rules changed")
MASK = "****"
PLAIN_OPTIONS = frozenset({
    "album", "auth", "avatar", "batch", "blocks", "content", "cto", "detect", "discovery", "emojis", "facility",
    "fields", "footer", "footer_logo", "format", "hsreq", "image", "join", "logpid", "mdv", "method", "mode",
    "msgtype", "optional", "overflow", "preview", "priority", "redirect", "retry", "rto", "secure", "silent", "smtp",
    "sound", "store", "timestamp", "tts", "tz", "verify", "version", "wait",
})
_URL = re.compile(r"^(?P<scheme>[A-Za-z][A-Za-z0-9+.-]*)://(?P<netloc>[^/?]*)(?P<path>[^?]*)(?:\?(?P<query>.*))?$",
                  re.DOTALL)
_URL_IN_TEXT = re.compile(r"\b[a-z][a-z0-9+.-]*://[^\s)]+")


def _mask(url: str) -> str:
    match = _URL.match(url)
    if match is None:
        return MASK
    query = match["query"]
    keep_host = query is None or not re.search(r"(^|&)mode=cloud(&|$)", query)  # ntfy.sh: the host part is a topic
    user, at, host = match["netloc"].rpartition("@")
    netloc = (":".join(MASK for _ in user.split(":", 1)) + "@" if at else "") + (host if keep_host else MASK)
    path = "/".join(MASK if segment else "" for segment in match["path"].split("/"))
    shown = ""
    if query is not None:
        pairs = []
        for pair in query.split("&"):
            key, equals, value = pair.partition("=")
            plain = key.lower() in PLAIN_OPTIONS and re.fullmatch(r"[\w.:-]{0,40}", value) is not None
            pairs.append(f"{key}{equals}{value if plain or not equals else MASK}" if key else MASK)
        shown = "?" + "&".join(pairs)
    return f"{match['scheme']}://{netloc}{path}{shown}"


def upgrade() -> None:
    with op.batch_alter_table("history_logs", schema=None) as batch_op:
        batch_op.add_column(sa.Column("admin_only", sa.Boolean(), nullable=False, server_default=sa.false()))
    bind = op.get_bind()
    logs = sa.table("history_logs", sa.column("id", sa.Integer), sa.column("action", sa.String),
                    sa.column("description", sa.String), sa.column("metadata", sa.JSON),
                    sa.column("admin_only", sa.Boolean))
    rows = bind.execute(sa.select(logs.c.id, logs.c.description, logs.c.metadata)
                        .where(logs.c.action.in_(ALERTING_ACTIONS))).all()
    for row in rows:
        details = dict(row.metadata or {})
        if isinstance(details.get("url"), str):
            details["url"] = _mask(details["url"])
        description = _URL_IN_TEXT.sub(lambda found: _mask(found.group(0)), row.description or "")
        bind.execute(logs.update().where(logs.c.id == row.id)
                     .values(admin_only=True, description=description, metadata=details))
    channels = sa.table("notification_channels", sa.column("id", sa.Integer), sa.column("url_masked", sa.String))
    for row in bind.execute(sa.select(channels.c.id, channels.c.url_masked)).all():
        bind.execute(channels.update().where(channels.c.id == row.id).values(url_masked=_mask(row.url_masked)[:1000]))


def downgrade() -> None:
    with op.batch_alter_table("history_logs", schema=None) as batch_op:
        batch_op.drop_column("admin_only")
