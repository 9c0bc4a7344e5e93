"""Access-log lines as requests, an engine (no database): the formats web servers write.

    combined   nginx's and Apache's "combined" (nginx's `$host` before it is allowed, and nginx's extra fields after)
    common     the Common Log Format (combined without referer and user agent)
    caddy      Caddy's JSON access log (`request.client_ip`/`remote_ip`/`remote_addr`, `request.uri`, `ts`, ...)
    ndjson     one JSON object per line with named fields (see NDJSON_FIELDS)
    auto       JSON lines as caddy or ndjson (by their shape), other lines as combined, then common

The combined pattern is the one CrowdSec's nginx parser (crowdsecurity/nginx-logs) uses, written as a Python regex
that also reads Apache's `\\"` escapes. Text is kept as the server logged it: nginx writes `"` and bytes outside
printable ASCII as `\\xHH`, so a logged request is matched exactly as CrowdSec matches it. Text from JSON logs has its
control characters written as `\\xHH` too: log content is the attacker's, and nothing in it may act as a terminal
escape or break a line. A request line that is not `METHOD TARGET HTTP/x` (TLS bytes sent to a plain-HTTP port,
`-`) is still a request the server answered: it keeps `method=""` and its raw text as the target, and detection
leaves it alone, as CrowdSec's parser does.
"""

from __future__ import annotations

import ipaddress
import json
import re
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta, timezone
from typing import Any

FORMATS = ("auto", "combined", "common", "caddy", "ndjson")
MAX_LINE_CHARS = 16_384
MAX_FIELD_CHARS = 4_096  # a target, user agent or referer longer than this is cut (and says so)
CUT_MARK = "…[cut]"

_COMBINED = re.compile(
    r"""^(?:(?P<host>\S+)\x20)?(?P<address>\S+)\x20\S+\x20(?P<user>\S+)\x20\[(?P<time>[^\]]+)\]
    \x20"(?P<request>(?:[^"\\]|\\.)*)"\x20(?P<status>\d{3})\x20(?P<size>\d+|-)
    (?:\x20"(?P<referer>(?:[^"\\]|\\.)*)"\x20"(?P<agent>(?:[^"\\]|\\.)*)")?
    (?P<rest>\x20.*)?$""",
    re.VERBOSE,
)
_REQUEST_LINE = re.compile(r"^([A-Za-z0-9_]+) (.*) HTTP/[0-9.]+$")
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
_MONTHS = {m: i for i, m in enumerate(("Jan Feb Mar Apr May Jun Jul Aug Sep Oct Nov Dec").split(), start=1)}
_CLF_TIME = re.compile(r"^(\d{2})/([A-Z][a-z]{2})/(\d{4}):(\d{2}):(\d{2}):(\d{2}) ([+-])(\d{2})(\d{2})$")

# NDJSON: the first of these names present in a record is used for each field.
NDJSON_FIELDS: dict[str, tuple[str, ...]] = {
    "time": ("time", "timestamp", "ts", "@timestamp", "time_local", "time_iso8601", "date"),
    "address": ("address", "remote_addr", "client_ip", "remote_ip", "ip", "client", "clientip"),
    "method": ("method", "verb", "request_method", "http_method"),
    "target": ("target", "uri", "request_uri", "path", "url", "request"),
    "status": ("status", "status_code", "http_status", "code"),
    "size": ("size", "bytes", "body_bytes_sent", "bytes_sent", "response_size"),
    "user_agent": ("user_agent", "http_user_agent", "agent", "ua", "userAgent"),
    "referer": ("referer", "http_referer", "referrer"),
    "host": ("host", "server_name", "vhost", "http_host"),
}


class LineError(ValueError):
    """A line that is not a request in the expected format (the message says why)."""


@dataclass(frozen=True, slots=True)
class Request:
    """One request as its server logged it."""

    time: datetime  # aware, UTC
    address: str  # the client, normalised (IPv4 or IPv6 text)
    method: str  # "" when the request line was not HTTP
    target: str  # path and query as logged (or the raw request text when method is "")
    status: int
    size: int  # response body bytes
    user_agent: str = ""
    referer: str = ""
    host: str = ""


def nginx_escaped(raw: bytes) -> str:
    """Bytes as nginx writes them in an access log: '"', '\\' and bytes outside printable ASCII as \\xHH."""
    return "".join(chr(b) if 0x20 <= b <= 0x7E and b not in (0x22, 0x5C) else f"\\x{b:02X}" for b in raw)


def _cut(text: str) -> str:
    return text if len(text) <= MAX_FIELD_CHARS else text[: MAX_FIELD_CHARS - len(CUT_MARK)] + CUT_MARK


def _visible(text: str) -> str:
    """Control characters as \\xHH: a log's text never acts as a terminal escape or a line break."""
    return _CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}", text)


def _address(text: str) -> str:
    text = text.strip()
    if text.startswith("[") and "]" in text:  # [v6]:port
        text = text[1 : text.index("]")]
    elif text.count(":") == 1:  # v4:port
        text = text.split(":", 1)[0]
    try:
        return str(ipaddress.ip_address(text))
    except ValueError:
        raise LineError(f"the client {text[:60]!r} is not an IP address") from None


def _clf_time(text: str) -> datetime:
    match = _CLF_TIME.match(text)
    if not match or match.group(2) not in _MONTHS:
        raise LineError(f"the time {text[:40]!r} is not dd/Mon/yyyy:hh:mm:ss +zzzz")
    day, month, year, hour, minute, second, sign, tz_hours, tz_minutes = match.groups()
    offset = timedelta(hours=int(tz_hours), minutes=int(tz_minutes))
    try:
        stamp = datetime(
            int(year), _MONTHS[month], int(day), int(hour), int(minute), int(second),
            tzinfo=timezone(-offset if sign == "-" else offset),
        )  # fmt: skip
    except ValueError as exc:
        raise LineError(f"the time {text[:40]!r} is not a date ({exc})") from None
    return stamp.astimezone(UTC)


def _json_time(value: Any) -> datetime:
    if isinstance(value, bool):
        raise LineError("the time is not a time")
    if isinstance(value, int | float):
        seconds = value / 1000 if value > 1e11 else value  # epoch milliseconds or seconds
        try:
            return datetime.fromtimestamp(seconds, UTC)
        except (OverflowError, OSError, ValueError):
            raise LineError(f"the time {value!r} is out of range") from None
    if isinstance(value, str):
        text = value.strip()
        if _CLF_TIME.match(text):
            return _clf_time(text)
        try:
            stamp = datetime.fromisoformat(text.replace("Z", "+00:00"))
        except ValueError:
            raise LineError(f"the time {text[:40]!r} is neither ISO 8601 nor a number") from None
        return (stamp if stamp.tzinfo else stamp.replace(tzinfo=UTC)).astimezone(UTC)
    raise LineError("the record has no time")


def _int(value: Any, name: str, *, default: int | None = None) -> int:
    if value in (None, "", "-") and default is not None:
        return default
    if isinstance(value, bool):
        raise LineError(f"{name} is not a number")
    try:
        number = int(value)
    except (TypeError, ValueError):
        raise LineError(f"{name} {str(value)[:20]!r} is not a number") from None
    if number < 0:
        raise LineError(f"{name} is negative")
    return number


def _request_line(text: str) -> tuple[str, str]:
    match = _REQUEST_LINE.match(text)
    return (match.group(1), match.group(2)) if match else ("", text)


def parse_clf(line: str, *, with_agent: bool | None = None) -> Request:
    """A combined (with_agent=True), common (False) or either (None) line."""
    match = _COMBINED.match(line)
    if not match:
        raise LineError("not an access-log line (combined or common)")
    has_agent = match.group("agent") is not None
    if with_agent is True and not has_agent:
        raise LineError("no referer and user agent (is this the common format?)")
    if with_agent is False and has_agent:
        raise LineError("a referer and user agent follow (is this the combined format?)")
    method, target = _request_line(match.group("request"))
    host = match.group("host") or ""
    return Request(
        time=_clf_time(match.group("time")),
        address=_address(match.group("address")),
        method=method,
        target=_cut(target),
        status=int(match.group("status")),
        size=_int(match.group("size"), "size", default=0),
        user_agent=_cut(match.group("agent") or ""),
        referer=_cut(match.group("referer") or ""),
        host=host if host != "-" else "",
    )


def _header(headers: Any, name: str) -> str:
    if not isinstance(headers, dict):
        return ""
    for key, value in headers.items():
        if isinstance(key, str) and key.lower() == name:
            return str(value[0] if isinstance(value, list) and value else value)
    return ""


def parse_caddy(record: dict[str, Any]) -> Request:
    request = record.get("request")
    if not isinstance(request, dict):
        raise LineError("a Caddy record has a 'request' object")
    address = request.get("client_ip") or request.get("remote_ip") or request.get("remote_addr")
    if not address:
        raise LineError("the Caddy record names no client (request.client_ip, remote_ip or remote_addr)")
    headers = request.get("headers")
    return Request(
        time=_json_time(record.get("ts")),
        address=_address(str(address)),
        method=_visible(str(request.get("method") or ""))[:32],
        target=_cut(_visible(str(request.get("uri") or ""))),
        status=_int(record.get("status"), "status"),
        size=_int(record.get("size"), "size", default=0),
        user_agent=_cut(_visible(_header(headers, "user-agent"))),
        referer=_cut(_visible(_header(headers, "referer"))),
        host=_cut(_visible(str(request.get("host") or ""))),
    )


def _field(record: dict[str, Any], name: str) -> Any:
    for key in NDJSON_FIELDS[name]:
        if key in record and record[key] is not None:
            return record[key]
    return None


def parse_ndjson(record: dict[str, Any]) -> Request:
    address = _field(record, "address")
    if address is None:
        raise LineError(f"the record names no client (one of {', '.join(NDJSON_FIELDS['address'])})")
    method = str(_field(record, "method") or "")
    target = str(_field(record, "target") or "")
    if not method and " HTTP/" in target:  # a whole request line under "request"
        method, target = _request_line(target)
    status = _field(record, "status")
    if status is None:
        raise LineError("the record has no status")
    return Request(
        time=_json_time(_field(record, "time")),
        address=_address(str(address)),
        method=_visible(method)[:32],
        target=_cut(_visible(target)),
        status=_int(status, "status"),
        size=_int(_field(record, "size"), "size", default=0),
        user_agent=_cut(_visible(str(_field(record, "user_agent") or ""))),
        referer=_cut(_visible(str(_field(record, "referer") or ""))),
        host=_cut(_visible(str(_field(record, "host") or ""))),
    )


def parse_line(line: str, log_format: str = "auto") -> Request:
    """One log line as a request; LineError says why it is not one."""
    line = line.rstrip("\r\n")
    if len(line) > MAX_LINE_CHARS:
        raise LineError(f"longer than {MAX_LINE_CHARS:,} characters")
    if not line.strip():
        raise LineError("an empty line")
    if log_format in ("combined", "common"):
        return parse_clf(line, with_agent=log_format == "combined")
    is_json = line.lstrip().startswith("{")
    if log_format == "auto" and not is_json:
        return parse_clf(line)
    if log_format not in ("auto", "caddy", "ndjson"):
        raise ValueError(f"unknown log format {log_format!r}; one of {', '.join(FORMATS)}")
    try:
        record = json.loads(line)
    except ValueError:
        raise LineError("not a JSON object") from None
    if not isinstance(record, dict):
        raise LineError("not a JSON object")
    if log_format == "caddy" or (log_format == "auto" and isinstance(record.get("request"), dict)):
        return parse_caddy(record)
    return parse_ndjson(record)
