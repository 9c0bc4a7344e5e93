"""The demo sites send the headers of their own headers.json, and serve the Fix Mode workspace of the demo
sources when there is one: a fix written there changes what the site serves, and so its grade."""

from __future__ import annotations

import json
import logging
import shutil

import httpx
import pytest

from secdash.demo_sites import routes as demo
from secdash.demo_sites import site_headers
from secdash.services.monitoring import headers_file
from secdash.services.monitoring.header_grade import grade_headers
from secdash.services.scanning import code_roots
from tests.support.api_app import shared_api

SANDBOX = "sandbox allow-scripts allow-forms"
TOUR_FIX = {
    "Content-Security-Policy": "default-src 'self'; frame-ancestors 'none'; object-src 'none'",
    "X-Frame-Options": "DENY",
}


@pytest.fixture
async def client(session, settings, monkeypatch):
    monkeypatch.setattr(demo, "GEM_DELAY_SECONDS", 0.0)
    monkeypatch.setattr(settings, "DEMO_SHARES_OUTAGE", "up")
    transport = httpx.ASGITransport(app=shared_api())
    async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as http:
        yield http


@pytest.fixture
def workspace():
    """A workspace copy of the demo sources, removed afterwards (every test of this process shares DATA_DIR,
    and a scan would read a workspace left behind)."""
    path = code_roots.workspace_for(code_roots.DEMO_SOURCES)
    assert not path.exists(), "a workspace of the demo sources was left behind by another test"
    shutil.copytree(code_roots.DEMO_SOURCES, path)
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)


def _policies(response: httpx.Response) -> list[str]:
    return [p.strip() for value in response.headers.get_list("content-security-policy") for p in value.split(",")]


def _own_headers(response: httpx.Response) -> dict[str, str]:
    """What the site itself sent, without the sandbox policy the console adds to every demo response."""
    sent = {k: v for k, v in response.headers.items() if k != "content-security-policy"}
    policies = [p for p in _policies(response) if p != SANDBOX]
    return sent | ({"content-security-policy": ", ".join(policies)} if policies else {})


def _write(workspace, slug: str, name: str, text: str) -> None:
    (workspace / slug / name).write_text(text)


def test_each_sites_file_holds_its_headers_in_canonical_form():
    for slug in code_roots.DEMO_SLUGS:
        text = (code_roots.DEMO_SOURCES / slug / site_headers.HEADERS_FILE).read_text()
        headers = site_headers.parse_headers(text)
        assert headers_file.render_headers(headers) == text
        assert headers["X-Content-Type-Options"] == "nosniff"
    tour = site_headers.parse_headers((code_roots.DEMO_SOURCES / "tour" / "headers.json").read_text())
    assert "Content-Security-Policy" not in tour and "X-Frame-Options" not in tour


@pytest.mark.parametrize("slug", code_roots.DEMO_SLUGS)
@pytest.mark.parametrize("path", ["", "search?q=tea", "login", "no-such-page.html"])
async def test_every_answer_carries_the_headers_of_the_sites_file(client, slug, path):
    expected = json.loads((code_roots.DEMO_SOURCES / slug / "headers.json").read_text())
    response = await client.get(f"/demo/{slug}/{path}")
    own = _own_headers(response)
    for name, value in expected.items():
        assert own.get(name.lower()) == value, (slug, path, name, response.headers)
    assert SANDBOX in _policies(response)


async def test_a_fixed_headers_file_in_the_workspace_changes_what_tour_serves_and_its_grade(client, workspace):
    before = await client.get("/demo/tour/")
    assert grade_headers(before.headers, is_https=False).grade == "F"
    fixed = site_headers.parse_headers((workspace / "tour" / "headers.json").read_text()) | TOUR_FIX
    _write(workspace, "tour", "headers.json", headers_file.render_headers(fixed))

    after = await client.get("/demo/tour/")
    assert after.status_code == 200
    assert sorted(_policies(after)) == sorted([TOUR_FIX["Content-Security-Policy"], SANDBOX])
    assert after.headers["x-frame-options"] == "DENY"
    graded = grade_headers(after.headers, is_https=False)
    # fixed headers over plain http: the reference's C+ (60), charged only for the missing HTTPS and redirect to it
    assert graded.grade == "C+", graded.findings
    assert graded.findings == [
        "Does not redirect to an HTTPS site (-20)",
        "No HTTPS: Strict-Transport-Security cannot apply to a site not served over HTTPS (-20)",
    ]
    stock = await client.get("/demo/stock/")  # the other sites serve their (unchanged) workspace copies
    assert grade_headers(stock.headers, is_https=False).grade == "C+"  # the Stock site: C+ 60

    shutil.rmtree(workspace)  # without the workspace, the original sources are served again
    assert grade_headers((await client.get("/demo/tour/")).headers, is_https=False).grade == "F"


async def test_a_page_changed_in_the_workspace_is_served(client, workspace):
    original = (code_roots.DEMO_SOURCES / "tour" / "translate.js").read_text()
    _write(workspace, "tour", "translate.js", "// fixed in the workspace\n")
    response = await client.get("/demo/tour/translate.js")
    assert response.status_code == 200 and response.text == "// fixed in the workspace\n"
    assert (code_roots.DEMO_SOURCES / "tour" / "translate.js").read_text() == original
    _write(workspace, "tour", "added.html", "<p>only in the workspace</p>")
    assert (await client.get("/demo/tour/added.html")).text == "<p>only in the workspace</p>"


@pytest.mark.parametrize(
    "path",
    [
        "/demo/tour/headers.json",
        "/demo/stock/headers.json",
        "/demo/gem/settings.py",
        "/demo/shares/cache.py",
        "/demo/stock/../tour/headers.json",
        "/demo/stock/%2e%2e/tour/headers.json",
        "/demo/gem/%2e%2e/%2e%2e/routes.py",
    ],
)
async def test_the_headers_file_and_python_code_are_never_served(client, path):
    response = await client.get(path)
    assert response.status_code == 404, response.text
    assert "nosniff" not in response.text and "import" not in response.text


async def test_the_workspaces_headers_file_and_code_are_not_served_either(client, workspace):
    _write(workspace, "tour", "notes.py", "SECRET = 1\n")
    for path in ("/demo/tour/headers.json", "/demo/tour/notes.py", "/demo/gem/settings.py"):
        assert (await client.get(path)).status_code == 404, path


@pytest.mark.parametrize(
    "text",
    [
        "{not json",
        "[]",
        '["X-Frame-Options", "DENY"]',
        '{"X-Frame-Options": 1}',
        '{"Bad Name": "x"}',
        '{"X-Frame-Options": "DENY\\r\\nSet-Cookie: a=b"}',
    ],
)
async def test_an_invalid_headers_file_sends_no_site_headers_and_does_not_fail(client, workspace, caplog, text):
    _write(workspace, "stock", "headers.json", text)
    with caplog.at_level(logging.WARNING, logger="secdash.demo_sites.site_headers"):
        first = await client.get("/demo/stock/")
        second = await client.get("/demo/stock/search?q=tea")
    for response in (first, second):
        assert response.status_code == 200
        assert _policies(response) == [SANDBOX]  # the console's sandbox is still sent
        assert "x-frame-options" not in response.headers and "set-cookie" not in response.headers
        # (the console adds its default nosniff and Referrer-Policy to any response without them)
    warnings = [r for r in caplog.records if "stock" in r.getMessage() and r.levelno == logging.WARNING]
    assert len(warnings) == 1, [r.getMessage() for r in warnings]  # once per change of the file, not per request
    assert grade_headers(first.headers, is_https=False).grade == "F"  # no CSP, no X-Frame-Options

    _write(workspace, "stock", "headers.json", headers_file.render_headers({"X-Frame-Options": "SAMEORIGIN"}))
    assert (await client.get("/demo/stock/")).headers["x-frame-options"] == "SAMEORIGIN"  # a valid file again


async def test_a_missing_headers_file_sends_no_site_headers(client, workspace):
    (workspace / "stock" / "headers.json").unlink()
    response = await client.get("/demo/stock/")
    assert response.status_code == 200 and _policies(response) == [SANDBOX]
    assert "strict-transport-security" not in response.headers


def test_the_file_is_parsed_again_only_when_it_changes(workspace, monkeypatch):
    calls = []
    real = site_headers.parse_headers
    monkeypatch.setattr(site_headers, "_cache", {})
    monkeypatch.setattr(site_headers, "parse_headers", lambda text: calls.append(text) or real(text))
    for _ in range(3):
        assert site_headers.headers_of("gem")["X-Frame-Options"] == "DENY"
    assert len(calls) == 1
    _write(workspace, "gem", "headers.json", headers_file.render_headers({"X-Frame-Options": "SAMEORIGIN"}))
    for _ in range(2):
        assert site_headers.headers_of("gem") == {"X-Frame-Options": "SAMEORIGIN"}
    assert len(calls) == 2
    site_headers.headers_of("gem")["X-Frame-Options"] = "changed by a caller"  # callers get their own copy
    assert site_headers.headers_of("gem") == {"X-Frame-Options": "SAMEORIGIN"}


def test_site_folder_is_the_workspace_once_it_exists(workspace):
    assert site_headers.site_folder("tour") == workspace / "tour"
    shutil.rmtree(workspace)
    assert site_headers.site_folder("tour") == code_roots.DEMO_SOURCES / "tour"
    with pytest.raises(ValueError):
        site_headers.site_folder("../tour")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("{not json", "not valid JSON"),
        ('[["X-Frame-Options", "DENY"]]', "JSON object"),
        ('"DENY"', "JSON object"),
        (json.dumps({f"X-Header-{i}": "v" for i in range(31)}), "at most 30"),
        ('{"X Frame": "DENY"}', "not a header name"),
        ('{"": "DENY"}', "not a header name"),
        (json.dumps({"X-" + "a" * 63: "v"}), "not a header name"),
        ('{"X-Frame-Options": ["DENY"]}', "must be a string"),
        ('{"X-Frame-Options": null}', "must be a string"),
        ('{"X-Frame-Options": "DENY\\nX-Other: 1"}', "no CR, LF or NUL"),
        ('{"X-Frame-Options": "DENY\\r"}', "no CR, LF or NUL"),
        ('{"X-Frame-Options": "DENY\\u0000"}', "no CR, LF or NUL"),
        (json.dumps({"Referrer-Policy": "a" * 2001}), "at most 2000"),
        ('{"X-Frame-Options": "DENY", "x-frame-options": "SAMEORIGIN"}', "set twice"),
        ('{"Content-Length": "0"}', "set by the server"),
        ('{"X-Note": "caf\\u00e9 \\u2603"}', "cannot send"),
    ],
)
def test_parse_headers_refuses_what_a_site_must_not_send(text, message):
    with pytest.raises(ValueError, match=message):
        site_headers.parse_headers(text)


def test_parse_headers_accepts_the_limits():
    headers = {name: "v" for name in headers_file.ALLOWED_HEADERS.values()} | {"Content-Security-Policy": "b" * 2000}
    assert site_headers.parse_headers(headers_file.render_headers(headers)) == headers
    assert site_headers.parse_headers("{}") == {}
    assert site_headers.parse_headers('{"Referrer-Policy": "a\\tb", "Permissions-Policy": "caf\\u00e9"}') == {
        "Referrer-Policy": "a\tb",
        "Permissions-Policy": "café",
    }
