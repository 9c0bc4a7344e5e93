"""Reading an apprise URL: the service it names, its masked form, where it connects, and the address rules.

apprise parses the URL (`Apprise.instantiate`): a URL it cannot read is refused with a clear message, and so is a
parameter that makes apprise read a local file or fetch a URL of its own (a key file, a template, an attachment).
`destinations.py` says where the parsed service connects: the hosts a URL names (webhooks, e-mail's SMTP server,
ntfy, Gotify, Kodi, syslog, IRC...) must resolve to public addresses, as the site monitor requires, unless an admin
allows private addresses for the channel; a vendor's fixed endpoint needs no check; a service SecDash cannot place
needs "allow private". The masked form (`masking.py`) is what admins see. At send time `outbound.py` checks every
connection again.
"""

from __future__ import annotations

import asyncio
import logging
import re
from dataclasses import dataclass
from functools import cache
from typing import Any
from urllib.parse import unquote, urlsplit

from secdash.services.alerting.destinations import Destination, destination_of
from secdash.services.alerting.masking import MaskExtrasInLogs, mask_url
from secdash.services.errors import Invalid
from secdash.services.probe import address_problem, resolve

MAX_URL_CHARS = 2000
RESOLVE_TIMEOUT_SECONDS = 5.0
ALLOW_PRIVATE_HINT = "tick 'Allow a private or local address' to send to it"
# Parameters apprise reads as a local path, whatever the service (FCM's and Vapid's keyfile, Vapid's subscription
# file, attachments). A `template` is a file or a URL apprise fetches for Discord, Slack, Telegram, Guilded,
# Workflows... (refused when apprise holds it as an attachment, see read_url) but a template name for WhatsApp or
# MSG91 (kept).
FILE_PARAMETERS = ("keyfile", "subfile", "attach", "attachment")


@cache
def _apprise():  # noqa: ANN202  (loading apprise's plugins takes about a second: once, on first use)
    import apprise

    logging.getLogger(apprise.logger.name).addFilter(MaskExtrasInLogs())  # "Loaded JSON URL: ..." at debug level
    # Below INFO, apprise and urllib3 log whole request URLs (a Slack or Discord token is in the path): never.
    for name in (apprise.logger.name, "urllib3"):
        if logging.getLogger(name).getEffectiveLevel() < logging.INFO:
            logging.getLogger(name).setLevel(logging.INFO)
    return apprise


def asset() -> Any:
    """apprise's settings for SecDash: services notified one after the other in the caller's thread (so the
    outbound guard's context applies), redirects not followed."""
    apprise = _apprise()
    return apprise.AppriseAsset(async_mode=False, http_redirects=False)


@dataclass(frozen=True)
class Target:
    service: str  # "JSON", "E-Mail", "Slack"...
    masked: str
    scheme: str
    destination: Destination


def _file_parameter(url: str) -> str | None:
    """The first parameter of the URL's query that apprise would read as a file or fetch, as apprise reads the
    names (decoded, lower case); a file:// value counts whatever its name."""
    if "?" not in url:
        return None
    from apprise.utils.parse import parse_qsd

    query = parse_qsd(url.split("?", 1)[1])
    for name, value in query["qsd"].items():
        if name in FILE_PARAMETERS or str(value).strip().lower().startswith("file:"):
            return name
    return None


def _refuse_files(name: str) -> Invalid:
    return Invalid(
        f"url: the {name}= parameter makes the server read a local file or fetch a URL of its own "
        "choosing; remove it (channels cannot use key files, templates or attachments)"
    )


def read_url(raw: object) -> Target:
    """The channel URL read by apprise; Invalid with a clear message when it cannot be used."""
    if not isinstance(raw, str) or not raw.strip():
        raise Invalid(
            "url is required: an apprise URL such as json://hooks.example.com/alerts or "
            "mailtos://user:password@example.com?to=ops@example.com"
        )
    url = raw.strip()
    if len(url) > MAX_URL_CHARS:
        raise Invalid(f"url is too long ({len(url)} characters; the limit is {MAX_URL_CHARS})")
    if any(ord(char) < 32 for char in url):
        raise Invalid("url must not contain control characters")
    scheme = url.split("://", 1)[0].lower() if "://" in url else ""
    named = _file_parameter(url)
    if named is not None:  # before apprise parses it: nothing may be opened
        raise _refuse_files(named)
    apprise = _apprise()
    plugin = apprise.Apprise.instantiate(url, asset=asset(), suppress_exceptions=True)
    if plugin is None:
        raise Invalid(
            f"url: apprise cannot read this URL{f' (scheme {scheme}://)' if scheme else ''}; see "
            "https://github.com/caronc/apprise/wiki for the URL of each service"
        )
    for name, value in vars(plugin).items():  # any other way apprise found to hold a file or a URL to fetch
        if isinstance(value, apprise.AppriseAttachment) and len(value):
            raise _refuse_files(name)
    if scheme in ("mailto", "mailtos") and getattr(plugin, "targets", None) == []:
        raise Invalid("url: no valid e-mail recipient (check the address after to=, e.g. to=ops@example.com)")
    destination = destination_of(plugin, scheme)
    masked = mask_url(plugin.url(privacy=True), keep_host=destination.kind == "hosts")
    return Target(
        service=str(getattr(plugin, "service_name", scheme) or scheme)[:60],
        masked=masked[:1000],
        scheme=scheme,
        destination=destination,
    )


async def _check_host(host: str, port: int | None) -> None:
    try:
        async with asyncio.timeout(RESOLVE_TIMEOUT_SECONDS):
            addresses = await resolve(host, port or 443)
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


async def check_address(target: Target, *, allow_private: bool) -> None:
    """Refuse a target that names a host which does not resolve or resolves to a non-public address, or whose
    destination SecDash cannot tell (unless private addresses are allowed). Checked when a channel is saved and
    again before every send."""
    if allow_private or target.destination.kind == "vendor":
        return
    if target.destination.kind == "unknown":
        raise Invalid(
            f"url: SecDash cannot tell where a {target.scheme}:// channel connects, so it could reach a "
            f"private or local address; {ALLOW_PRIVATE_HINT}"
        )
    for host, port in target.destination.hosts:
        await _check_host(host, port)


def secret_parts(raw: str, masked: str) -> list[str]:
    """Pieces of the raw URL that the masked form does not show (passwords, user names, tokens, path segments, a
    host part that is a token), longest first: what must never appear in a log line or an error shown to anyone."""
    parts = urlsplit(raw)
    pieces = {*re.split(r"[:@]", parts.netloc), *re.split(r"[/?&=#]", parts.path + "?" + parts.query + "#" + parts.fragment)}
    pieces |= {unquote(piece) for piece in pieces}
    return sorted((piece for piece in pieces if len(piece) >= 4 and piece not in masked), key=len, reverse=True)


def scrub(text: str, raw: str, masked: str) -> str:
    """`text` with the URL's secret parts replaced by ****."""
    text = text.replace(raw, masked)
    for piece in secret_parts(raw, masked):
        text = text.replace(piece, "****")
    return text
