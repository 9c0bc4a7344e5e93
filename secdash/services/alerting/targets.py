"""Reading an apprise URL: the service it names, its masked form, the host it sends to, and the address rules.

apprise parses the URL (`Apprise.instantiate`): a URL it cannot read is refused with a clear message. Its own
`url(privacy=True)` gives the masked form shown in the UI and the API (passwords and tokens cut). For services
that send to a host named in the URL (webhooks, e-mail, ntfy, Gotify, Matrix, ...), that host must resolve to
public addresses, as the site monitor requires, unless an admin allows a private address for the channel. The
other services send to their vendor's fixed public endpoint.
"""

from __future__ import annotations

import asyncio
import logging
import re
from dataclasses import dataclass
from functools import cache
from urllib.parse import unquote, urlsplit

from secdash.services.errors import Invalid
from secdash.services.probe import address_problem, resolve

MAX_URL_CHARS = 2000
RESOLVE_TIMEOUT_SECONDS = 5.0
ALLOW_PRIVATE_HINT = "tick 'Allow a private or local address' to send to it"
# Schemas whose URL names the host the message goes to (self-hosted services and plain protocols).
SELF_HOSTED = {"json", "jsons", "xml", "xmls", "form", "forms", "mailto", "mailtos", "ntfy", "ntfys", "gotify",
               "gotifys", "matrix", "matrixs", "apprise", "apprises", "rocket", "rockets", "mmost", "mmosts",
               "nctalk", "nctalks", "ncloud", "nclouds", "mqtt", "mqtts", "signal", "signals", "ifttt"}


@cache
def _apprise():  # noqa: ANN202  (loading apprise's plugins takes about a second: once, on first use)
    import apprise

    logging.getLogger(apprise.logger.name).addFilter(_MaskExtrasInLogs())  # "Loaded JSON URL: ..." at debug level
    # Below INFO, apprise and urllib3 log whole request URLs (a Slack or Discord token is in the path): never.
    for name in (apprise.logger.name, "urllib3"):
        if logging.getLogger(name).getEffectiveLevel() < logging.INFO:
            logging.getLogger(name).setLevel(logging.INFO)
    return apprise


@dataclass(frozen=True)
class Target:
    service: str  # "JSON", "E-Mail", "Slack"...
    masked: str
    scheme: str
    host: str | None  # the host to check, for self-hosted schemas
    port: int | None


def read_url(raw: object) -> Target:
    """The channel URL read by apprise; Invalid with a clear message when it cannot be used."""
    if not isinstance(raw, str) or not raw.strip():
        raise Invalid("url is required: an apprise URL such as json://hooks.example.com/alerts or "
                      "mailtos://user:password@example.com?to=ops@example.com")
    url = raw.strip()
    if len(url) > MAX_URL_CHARS:
        raise Invalid(f"url is too long ({len(url)} characters; the limit is {MAX_URL_CHARS})")
    if any(ord(char) < 32 for char in url):
        raise Invalid("url must not contain control characters")
    scheme = url.split("://", 1)[0].lower() if "://" in url else ""
    plugin = _apprise().Apprise.instantiate(url, suppress_exceptions=True)
    if plugin is None:
        raise Invalid(f"url: apprise cannot read this URL{f' (scheme {scheme}://)' if scheme else ''}; see "
                      "https://github.com/caronc/apprise/wiki for the URL of each service")
    if scheme in ("mailto", "mailtos") and getattr(plugin, "targets", None) == []:
        raise Invalid("url: no valid e-mail recipient (check the address after to=, e.g. to=ops@example.com)")
    host = None
    if scheme in SELF_HOSTED:
        host = getattr(plugin, "smtp_host", None) or getattr(plugin, "host", None)
    port = getattr(plugin, "port", None)
    return Target(service=str(getattr(plugin, "service_name", scheme) or scheme)[:60],
                  masked=_mask_extras(plugin.url(privacy=True))[:1000], scheme=scheme, host=host or None,
                  port=port if isinstance(port, int) else None)


# Query arguments apprise passes on as headers (+), payload (:) or GET parameters (-): apprise's privacy mode
# shows their values, which are often a token (?+Authorization=Bearer ...).
_EXTRA_VALUE = re.compile(r"([?&](?:\+|%2B|:|%3A|-)[^=&]*=)[^&]+", re.IGNORECASE)


def _mask_extras(url: str) -> str:
    return _EXTRA_VALUE.sub(r"\1****", url)


class _MaskExtrasInLogs(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        masked = _mask_extras(message)
        if masked != message:
            record.msg, record.args = masked, None
        return True


async def check_address(target: Target, *, allow_private: bool) -> None:
    """Refuse a self-hosted target whose host does not resolve, or resolves to a non-public address (unless
    allowed). Checked when a channel is saved and again before every send."""
    if target.host is None or allow_private:
        return
    host = target.host.strip("[]")
    try:
        async with asyncio.timeout(RESOLVE_TIMEOUT_SECONDS):
            addresses = await resolve(host, target.port or 443)
    except TimeoutError:
        raise Invalid(f"url: {host} did not resolve within {RESOLVE_TIMEOUT_SECONDS:g} s; check the name") from None
    except (OSError, UnicodeError):
        addresses = []
    if not addresses:
        raise Invalid(f"url: {host} does not resolve to an address; check the name")
    for address in addresses:
        problem = address_problem(address)
        if problem is not None:
            raise Invalid(f"url: {host} resolves to {address}, {problem}; {ALLOW_PRIVATE_HINT}")


def secret_parts(raw: str, masked: str) -> list[str]:
    """Pieces of the raw URL that the masked form does not show (passwords, tokens, keys), longest first: what
    must never appear in a log line or an error shown to anyone."""
    parts = urlsplit(raw)
    pieces = {parts.password or "", parts.username or "", *re.split(r"[/?&=#]", parts.path + "?" + parts.query)}
    pieces |= {unquote(piece) for piece in pieces}
    return sorted((piece for piece in pieces if len(piece) >= 4 and piece not in masked), key=len, reverse=True)


def scrub(text: str, raw: str, masked: str) -> str:
    """`text` with the URL's secret parts replaced by ****."""
    text = text.replace(raw, masked)
    for piece in secret_parts(raw, masked):
        text = text.replace(piece, "****")
    return text
