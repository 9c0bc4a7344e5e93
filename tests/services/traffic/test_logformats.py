"""Access-log lines as requests: the formats web servers write, and lines that are not requests."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest

from secdash.services.traffic.fields import http_fields
from secdash.services.traffic.logformats import MAX_FIELD_CHARS, MAX_LINE_CHARS, LineError, parse_line

COMBINED = (
    '203.0.113.9 - alice [10/Oct/2025:13:55:36 -0700] "GET /shop/item.php?id=1 HTTP/1.1" 404 153 '
    '"https://example.com/" "Mozilla/5.0 (X11)"'
)


def test_a_combined_line_gives_every_field_with_the_time_in_utc():
    request = parse_line(COMBINED)
    assert request.time == datetime(2025, 10, 10, 20, 55, 36, tzinfo=UTC)
    assert (request.address, request.method, request.target) == ("203.0.113.9", "GET", "/shop/item.php?id=1")
    assert (request.status, request.size) == (404, 153)
    assert (request.referer, request.user_agent, request.host) == ("https://example.com/", "Mozilla/5.0 (X11)", "")


def test_nginx_host_prefix_and_trailing_fields_are_read():
    line = 'shop.example 2001:db8::7 - - [01/Jan/2026:00:00:00 +0000] "HEAD / HTTP/2.0" 200 0 "-" "curl/8" 512 0.003 [up] []'
    request = parse_line(line)
    assert (request.host, request.address, request.method, request.status) == ("shop.example", "2001:db8::7", "HEAD", 200)


def test_common_format_has_no_agent_and_a_dash_size_is_zero():
    request = parse_line('198.51.100.4 - - [01/Jan/2026:00:00:00 +0000] "GET / HTTP/1.0" 304 -', "common")
    assert (request.size, request.user_agent) == (0, "")
    with pytest.raises(LineError, match="combined"):
        parse_line(COMBINED, "common")


def test_escaped_quotes_of_nginx_and_apache_stay_as_logged():
    nginx = '192.0.2.1 - - [01/Jan/2026:00:00:00 +0000] "GET /?q=\\x22x HTTP/1.1" 200 1 "-" "a\\x22b"'
    apache = '192.0.2.1 - - [01/Jan/2026:00:00:00 +0000] "GET /a\\"b HTTP/1.1" 200 1 "-" "say \\"hi\\""'
    assert parse_line(nginx).target == "/?q=\\x22x" and parse_line(nginx).user_agent == "a\\x22b"
    assert parse_line(apache).target == '/a\\"b' and parse_line(apache).user_agent == 'say \\"hi\\"'


def test_a_request_line_that_is_not_http_is_still_a_request_without_a_method():
    request = parse_line('192.0.2.1 - - [01/Jan/2026:00:00:00 +0000] "\\x16\\x03\\x01" 400 157 "-" "-"')
    assert (request.method, request.target, request.status) == ("", "\\x16\\x03\\x01", 400)


def test_caddy_json_with_client_ip_headers_and_epoch_time():
    record = {
        "level": "info", "ts": 1767225600.25, "logger": "http.log.access",
        "request": {"remote_ip": "10.0.0.1", "client_ip": "203.0.113.50", "method": "POST", "host": "gem.example",
                    "uri": "/login", "headers": {"User-Agent": ["Firefox"], "Referer": ["https://gem.example/"]}},
        "status": 401, "size": 12,
    }  # fmt: skip
    request = parse_line(json.dumps(record))
    assert request.address == "203.0.113.50"  # the client Caddy trusted, not the proxy
    assert request.time == datetime(2026, 1, 1, 0, 0, 0, 250000, tzinfo=UTC)
    assert (request.method, request.target, request.host, request.status) == ("POST", "/login", "gem.example", 401)
    assert (request.user_agent, request.referer) == ("Firefox", "https://gem.example/")


def test_ndjson_with_named_fields_and_a_whole_request_line():
    line = json.dumps({"@timestamp": "2026-01-01T01:00:00+01:00", "remote_addr": "198.51.100.9:5555",
                       "request": "DELETE /api/x HTTP/1.1", "status": "204", "bytes": 0})  # fmt: skip
    request = parse_line(line)
    assert (request.address, request.method, request.target, request.status) == ("198.51.100.9", "DELETE", "/api/x", 204)
    assert request.time == datetime(2026, 1, 1, tzinfo=UTC)


def test_control_characters_from_json_logs_are_written_out_not_kept():
    line = json.dumps({"ts": 1, "ip": "192.0.2.8", "path": "/", "status": 200, "user_agent": "x\u001b[2J\nEvil: 1"})
    assert parse_line(line).user_agent == "x\\x1b[2J\\x0aEvil: 1"


@pytest.mark.parametrize(
    ("line", "reason"),
    [
        ("", "empty"),
        ("hello world", "not an access-log line"),
        ('not-an-ip - - [01/Jan/2026:00:00:00 +0000] "GET / HTTP/1.1" 200 1 "-" "-"', "not an IP address"),
        ('192.0.2.1 - - [31/Feb/2026:00:00:00 +0000] "GET / HTTP/1.1" 200 1 "-" "-"', "not a date"),
        ('192.0.2.1 - - [01/Foo/2026:00:00:00 +0000] "GET / HTTP/1.1" 200 1 "-" "-"', "dd/Mon/yyyy"),
        ('{"ts": 1, "ip"', "not a JSON object"),
        ('{"ts": 1, "path": "/", "status": 200}', "names no client"),
        ('{"ts": 1, "ip": "192.0.2.1", "path": "/"}', "no status"),
        ('{"ts": "yesterday", "ip": "192.0.2.1", "status": 200}', "neither ISO 8601"),
        ('{"ts": 1, "ip": "192.0.2.1", "status": -3}', "negative"),
    ],
)
def test_a_line_that_is_not_a_request_says_why(line, reason):
    with pytest.raises(LineError, match=reason):
        parse_line(line)


def test_over_long_lines_are_refused_and_long_fields_are_cut_visibly():
    with pytest.raises(LineError, match="longer than"):
        parse_line("x" * (MAX_LINE_CHARS + 1))
    agent = "A" * (MAX_FIELD_CHARS + 500)
    request = parse_line(f'192.0.2.1 - - [01/Jan/2026:00:00:00 +0000] "GET / HTTP/1.1" 200 1 "-" "{agent}"')
    assert len(request.user_agent) == MAX_FIELD_CHARS and request.user_agent.endswith("[cut]")


@pytest.mark.parametrize(
    ("target", "before_query", "args", "file_name", "static"),
    [
        ("/a/b.php?x=1?y=2", "/a/b.php?x=1", "y=2", "b.php?x=1", False),  # CrowdSec splits at the last '?'
        ("/dir/", "/dir/", "", "", False),
        ("/img/logo.PNG", "/img/logo.PNG", "", "logo.PNG", True),
        ("/archive.tar.gz", "/archive.tar.gz", "", "archive.tar.gz", True),
        ("/.env", "/.env", "", ".env", False),
        ("*", "*", "", "", False),
    ],
)
def test_detection_fields_follow_crowdsecs_http_enricher(target, before_query, args, file_name, static):
    line = f'192.0.2.1 - - [01/Jan/2026:00:00:00 +0000] "GET {target} HTTP/1.1" 200 1 "-" "-"'
    fields = http_fields(parse_line(line))
    assert (fields.path, fields.request, fields.args, fields.file_name, fields.static) == (
        target, before_query, args, file_name, static,
    )  # fmt: skip


def test_a_json_array_is_not_a_record():
    with pytest.raises(LineError, match="not a JSON object"):
        parse_line("[1, 2]", "ndjson")
