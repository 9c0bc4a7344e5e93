"""Where an apprise channel connects, read from apprise's parsed plugin object (apprise 2.2.0, every plugin reviewed).

Three answers:
- "hosts": the URL names the host the message goes to (a webhook, a self-hosted server, an SMTP server, a syslog
  or IRC server...): those hosts are resolved and checked against the address rules;
- "vendor": the service sends only to its vendor's own public endpoint (Slack, Telegram, PagerDuty...), and the
  host part of its URL is an account name or a token, not a place to connect to;
- "unknown": SecDash cannot tell where it connects (desktop and local system notifiers, Nostr relays, web push
  endpoints read from a subscription, Bluesky's server found through the handle, any service added by a later
  apprise): such a channel needs "allow private addresses".

Whatever the answer, every connection a delivery makes is checked again at the socket (`outbound.py`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

# The URL's host (and port) is the server the message goes to.
# fmt: off
HOSTED = frozenset({
    "amqp", "amqps", "apprise", "apprises", "bark", "barks", "deltachat", "deltachats", "emby", "embys", "enigma2",
    "enigma2s", "evolution", "evolutions", "flowtriq", "flowtriqs", "form", "forms", "goalert", "goalerts", "gorush",
    "gorushs", "gotify", "gotifys", "growl", "hassio", "hassios", "humhub", "humhubs", "infobip", "irc", "ircs",
    "jellyfin", "jellyfins", "json", "jsons", "kodi", "kodis", "xbmc", "xbmcs", "mailto", "mailtos", "mastodon",
    "mastodons", "toot", "toots", "misskey", "misskeys", "mmost", "mmosts", "mqtt", "mqtts", "ncloud", "nclouds",
    "nctalk", "nctalks", "onebot", "onebots", "parsep", "parseps", "pinglet", "pinglets", "pjet", "pjets", "rsyslog",
    "rocket", "rockets", "smpp", "smpps", "smseagle", "smseagles", "session", "sessions", "sogs", "signal", "signals",
    "synology", "synologys", "workflow", "workflows", "xmatters", "xml", "xmls", "xmpp", "xmpps",
})
# fmt: on

# Self-hosted when the URL names a host, else the vendor's cloud (ntfy.sh, notica.us, the LaMetric cloud...).
# fmt: off
HOSTED_WHEN_GIVEN = frozenset({
    "betterstack", "fluxer", "fluxers", "notica", "noticas", "notifico", "notificos", "pushdeer", "pushdeers",
    "trigv", "trigvs",
})
# fmt: on
# ...and those whose cloud form also puts something (a topic, an app id, a token) where a host would be.
MODE_HOSTED = {"ntfy": "private", "ntfys": "private", "lametric": "device", "lametrics": "device"}
MATRIX = frozenset({"matrix", "matrixs"})  # a homeserver, except the t2bot.io webhook mode

# Only the vendor's own endpoint (the URL's host part is an account, a token or a sender domain).
# fmt: off
VENDOR = frozenset({
    "46elks", "elks", "aprs", "atalk", "azure", "o365", "brevo", "bulksms", "bulkvs", "burstsms", "kudosity",
    "chanify", "clickatell", "clicksend", "cliq", "zcliq", "zohocliq", "cm", "d7sms", "dapnet", "dingtalk", "discord",
    "dot", "eight00com", "exotel", "fcm", "feishu", "firehydrant", "flock", "freemobile", "gchat", "github",
    "groundmail", "groupme", "guilded", "gupshup", "httpsms", "ifttt", "ilert", "incidentio", "jira", "join", "kakao",
    "kakaotalk", "kaleyra", "klr", "kavenegar", "kook", "kumulos", "lark", "lauther", "lfg", "line", "mailersend",
    "mailgun", "mobilemessage", "mobilemsg", "msg91", "msgbird", "nexmo", "vonage", "notifiarr", "notifyre",
    "octopush", "onesignal", "opsgenie", "pagerduty", "pagertree", "pbul", "pingram", "plivo", "postmark", "pover",
    "prowl", "psafer", "psafers", "push", "pushed", "pushme", "pushplus", "wecom", "pushward", "pushy", "qq", "reddit",
    "resend", "revolt", "ringc", "ryver", "schan", "sendgrid", "sendpulse", "serwersms", "ses", "seven", "sfr",
    "signalgrid", "signl4", "simplepush", "spush", "sinch", "slack", "smsc", "smsmanager", "smsmgr", "smstunnel",
    "smtp2go", "sns", "sparkpost", "spike", "splunk", "victorops", "spugpush", "squadcast", "stackfield", "strmlabs",
    "telesign", "telnyx", "tgram", "threema", "tweet", "twitter", "x", "twilio", "twist", "viber", "voipms", "webex",
    "wxteams", "wechat", "wecombot", "whapi", "whatsapp", "wpush", "wxpusher", "youlmk", "zalo", "zoom",
})
# fmt: on


@dataclass(frozen=True)
class Destination:
    kind: Literal["hosts", "vendor", "unknown"]
    hosts: tuple[tuple[str, int | None], ...] = ()


def _port(plugin: Any) -> int | None:
    port = getattr(plugin, "port", None)
    return port if isinstance(port, int) and not isinstance(port, bool) else None


def _host(plugin: Any, attribute: str = "host") -> str:
    value = getattr(plugin, attribute, None)
    return value.strip().strip("[]") if isinstance(value, str) else ""


def _named(host: str, port: int | None) -> Destination:
    # A service that should name its host but names none is not placed: it needs "allow private".
    return Destination("hosts", ((host, port),)) if host else Destination("unknown")


def destination_of(plugin: Any, scheme: str) -> Destination:
    """Where the parsed plugin sends (see the module's docstring)."""
    scheme = scheme.lower()
    if scheme in ("mailto", "mailtos"):  # ?smtp= (or the provider apprise recognised) is the server it talks to
        return _named(_host(plugin, "smtp_host") or _host(plugin), _port(plugin))
    if scheme == "zulip":  # {organization}.{hostname}: the hostname may be the organisation's own server
        organization, hostname = _host(plugin, "organization"), _host(plugin, "hostname")
        return _named(f"{organization}.{hostname}" if organization and hostname else "", 443)
    if scheme in HOSTED:
        return _named(_host(plugin), _port(plugin))
    if scheme in MODE_HOSTED:
        if str(getattr(plugin, "mode", "")) == MODE_HOSTED[scheme]:
            return _named(_host(plugin), _port(plugin))
        return Destination("vendor")
    if scheme in MATRIX:
        if str(getattr(plugin, "mode", "")) == "t2bot":
            return Destination("vendor")
        return _named(_host(plugin), _port(plugin))
    if scheme in HOSTED_WHEN_GIVEN:
        host = _host(plugin)
        return _named(host, _port(plugin)) if host else Destination("vendor")
    if scheme in VENDOR:
        return Destination("vendor")
    return Destination("unknown")
