"""The masked form of a channel URL: what admins see in Settings and in History Logs, and what errors show.

apprise's own privacy form (`url(privacy=True)`) cuts passwords and the tokens it knows, but keeps user names,
path segments (a webhook's `/hooks/<token>`, an ntfy topic, a chat id), query values apprise does not mark as
private, and a host part that is a token or a topic (`ntfys://<topic>`). On top of it: the user name, every path
segment and every query value but apprise's plain options are replaced by ****, and so is the host part of a
service that does not connect to it.
"""

from __future__ import annotations

import logging
import re

MASK = "****"
# Query options whose values are settings, never secrets: they stay readable.
# fmt: off
PLAIN_OPTIONS = frozenset({
    "album", "auth", "avatar", "batch", "blocks", "content", "cto", "detect", "discovery", "emojis", "facility",
    "fields", "footer", "footer_logo", "format", "hsreq", "image", "join", "logpid", "mdv", "method", "mode",
    "msgtype", "optional", "overflow", "preview", "priority", "redirect", "retry", "rto", "secure", "silent", "smtp",
    "sound", "store", "timestamp", "tts", "tz", "verify", "version", "wait",
})
# fmt: on
_URL = re.compile(r"^(?P<scheme>[A-Za-z][A-Za-z0-9+.-]*)://(?P<netloc>[^/?]*)(?P<path>[^?]*)(?:\?(?P<query>.*))?$", re.DOTALL)


def mask_url(url: str, *, keep_host: bool = True) -> str:
    """`url` (apprise's privacy form) with user names, path segments and non-plain query values masked; the host
    part too unless keep_host."""
    match = _URL.match(url)
    if match is None:
        return MASK
    user, at, host = match["netloc"].rpartition("@")
    netloc = (":".join(MASK for _ in user.split(":", 1)) + "@" if at else "") + (host if keep_host else MASK)
    path = "/".join(MASK if segment else "" for segment in match["path"].split("/"))
    query = ""
    if match["query"] is not None:
        pairs = []
        for pair in match["query"].split("&"):
            key, equals, value = pair.partition("=")
            plain = key.lower() in PLAIN_OPTIONS and re.fullmatch(r"[\w.:-]{0,40}", value) is not None
            pairs.append(f"{key}{equals}{value if plain or not equals else MASK}" if key else MASK)
        query = "?" + "&".join(pairs)
    return f"{match['scheme']}://{netloc}{path}{query}"


# Query arguments apprise passes on as headers (+), payload (:) or GET parameters (-): apprise's debug lines show
# their values, which are often a token (?+Authorization=Bearer ...).
_EXTRA_VALUE = re.compile(r"([?&](?:\+|%2B|:|%3A|-)[^=&]*=)[^&]+", re.IGNORECASE)


def mask_extras(text: str) -> str:
    return _EXTRA_VALUE.sub(r"\1****", text)


class MaskExtrasInLogs(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        masked = mask_extras(message)
        if masked != message:
            record.msg, record.args = masked, None
        return True
