"""Denial-of-service and bad-input limits of the API (issue 7, items 4 and "Weak"): request bodies,
lone surrogates, huge path ids, unusual methods, field lengths, audit metadata, and database
connections held across a model call."""

from __future__ import annotations

import asyncio
import json

import httpx
import pytest
from sqlalchemy import event
from sqlalchemy.ext.asyncio import async_sessionmaker, create_async_engine
from sqlmodel import select
from sqlmodel.ext.asyncio.session import AsyncSession

from secdash.ai.base import Done, Structured, TextDelta
from secdash.core import db
from secdash.core.config import get_settings
from secdash.core.unit import commit
from secdash.models import HistoryLog, LogCategory, Site
from secdash.services import audit
from secdash.services.agents import ai_calls
from secdash.services.identity import quotas
from secdash.services.problems.events import MAX_NOTE_LENGTH
from tests.api.conftest import signed_in
from tests.support.api_app import shared_api

BIG_ID = 2**63


@pytest.fixture
async def client(session):
    transport = httpx.ASGITransport(app=shared_api(), client=("198.51.100.7", 50000))
    async with httpx.AsyncClient(transport=transport, base_url="http://testserver", timeout=60) as http:
        yield http


@pytest.fixture
async def admin(client, session):
    return await signed_in(client, session, "root@example.com", "admin")


def _is_json_error(response, *statuses: int) -> bool:
    return (
        response.status_code in statuses
        and response.headers["content-type"].startswith("application/json")
        and isinstance(response.json().get("message"), str)
    )


# --- request bodies ---------------------------------------------------------------------------


async def test_body_over_the_cap_is_413_with_content_length(client, session):
    cap = get_settings().API_MAX_BODY_BYTES
    assert cap == 256 * 1024
    body = json.dumps({"email": "a@b.co", "password": "x" * cap}).encode()
    response = await client.post("/api/auth/login", content=body, headers={"content-type": "application/json"})
    assert response.status_code == 413
    assert response.json() == {"message": "request body too large"}


async def test_body_over_the_cap_is_413_when_chunked(client, admin):
    async def chunks():
        yield b'{"name": "x", "url": "https://example.com/'
        for _ in range(40):
            yield b"a" * 8192
        yield b'"}'

    response = await client.post("/api/sites", content=chunks(), headers={**admin, "content-type": "application/json"})
    assert response.status_code == 413
    assert response.json() == {"message": "request body too large"}


async def test_body_under_the_cap_is_served(client, session):
    body = json.dumps({"email": "a@b.co", "password": "x" * 1000}).encode()
    response = await client.post("/api/auth/login", content=body, headers={"content-type": "application/json"})
    assert response.status_code == 401


@pytest.mark.parametrize(
    "raw",
    [
        b'{"email": "\\ud800", "password": "x"}',
        b'{"email": "a@b.co", "password": "\\udfff"}',
        b'{"email": "a@b.co", "password": "x", "\\ud83d": 1}',
    ],
)
async def test_lone_surrogate_on_login_is_400(client, session, raw):
    response = await client.post("/api/auth/login", content=raw, headers={"content-type": "application/json"})
    assert _is_json_error(response, 400), response.text
    assert "unicode" in response.json()["message"].lower()


async def test_lone_surrogate_without_content_type_is_400(client, session):
    response = await client.post("/api/auth/login", content=b'{"email": "\\ud800", "password": "x"}')
    assert _is_json_error(response, 400), response.text


@pytest.mark.parametrize(
    ("method", "path", "raw"),
    [
        ("POST", "/api/sites", b'{"name": "\\ud800", "url": "https://example.com"}'),
        ("POST", "/api/defense-chat", b'{"message": "hi \\udc00 there", "agentId": "stock"}'),
        ("POST", "/api/defense-chat/message", b'{"content": ["\\ud800"]}'),
        ("POST", "/api/security-events/1/resolve", b'{"note": "\\ud800"}'),
    ],
)
async def test_lone_surrogate_is_400_on_every_route(client, admin, method, path, raw):
    response = await client.request(method, path, content=raw, headers={**admin, "content-type": "application/json"})
    assert _is_json_error(response, 400), response.text


async def test_a_proper_surrogate_pair_is_fine(client, admin):
    response = await client.post(
        "/api/sites",
        content=b'{"name": "Shop \\ud83d\\ude00", "url": "http://127.0.0.1:9/", "allowPrivate": true}',
        headers={**admin, "content-type": "application/json"},
    )
    assert response.status_code == 201 and response.json()["name"] == "Shop \U0001f600"


async def test_deeply_nested_json_is_400_not_500(client, session):
    raw = b"[" * 100_000 + b"]" * 100_000
    response = await client.post("/api/auth/login", content=raw, headers={"content-type": "application/json"})
    assert _is_json_error(response, 400, 413), response.text


# --- ids, methods -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("PUT", f"/api/sites/{BIG_ID}"),
        ("DELETE", f"/api/sites/{BIG_ID}"),
        ("GET", f"/api/sites/{BIG_ID}/checks"),
        ("POST", f"/api/security-events/{BIG_ID}/resolve"),
        ("GET", f"/api/sites/{2**31}/checks"),
        ("GET", f"/api/sites/{-BIG_ID}/checks"),
        ("GET", f"/api/security-events?siteId={BIG_ID}"),
    ],
)
async def test_huge_ids_are_400_or_404(client, admin, method, path):
    response = await client.request(method, path, json={"name": "x", "url": "https://example.com", "note": ""}, headers=admin)
    assert _is_json_error(response, 400, 404), (response.status_code, response.text)


@pytest.mark.parametrize("method", ["TRACE", "PROPFIND", "CONNECT", "FOO"])
@pytest.mark.parametrize("path", ["/api/auth/user", "/api/does-not-exist", "/"])
async def test_unusual_methods_answer_json(client, session, method, path):
    response = await client.request(method, path)
    assert _is_json_error(response, 404, 405), (response.status_code, response.headers, response.text)


# --- field caps -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("payload", "field"),
    [
        ({"name": "n" * 81, "url": "https://example.com"}, "name"),
        ({"name": "Blog", "url": "https://example.com/" + "a" * 2030}, "url"),
    ],
)
async def test_site_fields_are_capped(client, session, admin, payload, field):
    response = await client.post("/api/sites", json=payload, headers=admin)
    assert _is_json_error(response, 400) and field in response.json()["message"], response.text
    assert (await session.exec(select(Site))).all() == []


async def test_a_url_of_2048_characters_is_accepted(client, admin):
    url = "http://127.0.0.1:9/" + "a" * (2048 - len("http://127.0.0.1:9/"))
    response = await client.post("/api/sites", json={"name": "Long", "url": url, "allowPrivate": True}, headers=admin)
    assert response.status_code == 201


@pytest.mark.parametrize(
    ("payload", "field"),
    [
        ({"email": "a" * 250 + "@b.co", "password": "x"}, "email"),
        ({"email": "a@b.co", "password": "x" * 1025}, "password"),
    ],
)
async def test_login_fields_are_capped(client, session, payload, field):
    response = await client.post("/api/auth/login", json=payload)
    assert _is_json_error(response, 400) and field in response.json()["message"], response.text


async def test_other_text_fields_are_capped(client, admin):
    checks = [
        ("POST", "/api/security-events/1/resolve", {"note": "n" * (MAX_NOTE_LENGTH + 1)}, "note"),
        ("POST", "/api/defense-chat/message", {"content": "c" * 4001}, "message"),  # the UI's words (the service's)
        ("POST", "/api/defense-chat", {"message": "m" * 4001, "agentId": "stock"}, "message"),
        ("POST", "/api/ai-chat", {"message": "hi", "agentId": "s" * 41}, "agentId"),
        ("GET", "/api/history-logs?category=" + "c" * 201, None, "category"),
        ("GET", "/api/security-events?severity=" + "s" * 201, None, "severity"),
    ]
    for method, path, body, field in checks:
        response = await client.request(method, path, json=body, headers=admin)
        assert _is_json_error(response, 400) and field in response.json()["message"], (path, response.text)


# --- audit metadata ---------------------------------------------------------------------------


async def test_audit_details_are_truncated_and_bounded(session):
    huge = "u" * (5 * 1024 * 1024)
    entry = audit.record(
        session,
        category=LogCategory.system,
        action="Site added",
        description="added " + huge,
        details={"url": huge, "nested": {"deep": [huge, "ok"]}, "n": 3, **{f"k{i}": "v" * 400 for i in range(40)}},
    )
    await commit(session)
    stored = (await session.exec(select(HistoryLog).where(HistoryLog.id == entry.id))).one()
    assert len(json.dumps(stored.details)) <= audit.MAX_DETAILS_BYTES
    assert len(stored.description) <= 2000
    assert stored.details["url"].startswith("uuu") and "truncated" in stored.details["url"]
    assert stored.details["n"] == 3


async def test_small_audit_details_are_kept_as_they_are(session):
    details = {"email": "a@b.co", "ip": "198.51.100.7", "sessions": 2, "before": {"name": "x", "url": "https://x"}}
    entry = audit.record(session, category=LogCategory.security, action="Login succeeded", description="ok", details=details)
    await commit(session)
    assert (await session.exec(select(HistoryLog).where(HistoryLog.id == entry.id))).one().details == details


async def test_history_stays_small_after_a_huge_entry(client, session, admin):
    audit.record(
        session, category=LogCategory.system, action="Site added", description="x", details={"url": "h" * (5 * 1024 * 1024)}
    )
    await commit(session)
    response = await client.get("/api/history-logs", headers=admin)
    assert response.status_code == 200 and len(response.content) < 20_000


# --- database connections and model calls -----------------------------------------------------


class PoolProbe:
    """A model that records how many pooled connections are checked out while it "thinks"."""

    name = "probe"
    model = "probe-1"

    def __init__(self, wait_for: int = 1) -> None:
        self.checked_out: list[int] = []
        self.wait_for = wait_for
        self.inside = 0
        self.all_inside = asyncio.Event()

    async def stream(self, task):
        self.checked_out.append(db.get_engine().pool.checkedout())
        self.inside += 1
        if self.inside >= self.wait_for:
            self.all_inside.set()
        try:
            # Every concurrent request must be thinking at the same time; bounded so a failure is quick.
            await asyncio.wait_for(self.all_inside.wait(), timeout=20)
        except TimeoutError:
            yield TextDelta("gave up waiting")
            yield Done()
            return
        yield TextDelta("All clear.")
        yield Done()

    async def structured(self, task, schema):  # the threat judgement: the rules' own
        return Structured(task.offline_structured(schema))


async def test_no_connection_is_held_while_the_model_thinks(client, admin, monkeypatch):
    probe = PoolProbe()
    monkeypatch.setattr(ai_calls, "get_provider", lambda settings: probe)
    for path, body in (
        ("/api/defense-chat", {"message": "status?", "agentId": "stock"}),
        ("/api/defense-chat/message", {"content": "status?"}),
        ("/api/ai-chat", {"message": "status?", "agentId": "tour"}),
    ):
        response = await client.post(path, json=body, headers=admin)
        assert response.status_code == 200, response.text
    assert probe.checked_out == [0, 0, 0]


@pytest.fixture
async def tiny_pool(migrated_db, monkeypatch):
    """The app's engine replaced by one with two connections and a short wait for a free one."""
    url = get_settings().async_database_url
    engine = create_async_engine(url, pool_size=2, max_overflow=0, pool_timeout=5)
    if url.startswith("sqlite"):
        event.listen(engine.sync_engine, "connect", db._tune_sqlite)
    monkeypatch.setattr(db, "_engine", engine)
    monkeypatch.setattr(db, "_sessionmaker", async_sessionmaker(engine, class_=AsyncSession, expire_on_commit=False))
    yield engine
    await engine.dispose()


async def test_sixteen_concurrent_chats_share_a_pool_of_two(client, admin, tiny_pool, monkeypatch):
    probe = PoolProbe(wait_for=16)
    monkeypatch.setattr(ai_calls, "get_provider", lambda settings: probe)
    # One user asking 16 questions at once (the per-user model budget is not what this test is about).
    monkeypatch.setattr(quotas, "MAX_CONCURRENT_AI_CALLS", 100)
    monkeypatch.setattr(get_settings(), "AI_CALLS_PER_MINUTE", 100)
    monkeypatch.setattr(get_settings(), "AI_CALLS_PER_HOUR", 1000)

    async def ask(i: int):
        return await client.post("/api/defense-chat", json={"message": f"question {i}", "agentId": "gem"}, headers=admin)

    responses = await asyncio.gather(*(ask(i) for i in range(16)))
    assert [r.status_code for r in responses] == [200] * 16, [r.text for r in responses if r.status_code != 200]
    assert {r.json()["response"] for r in responses} == {"All clear."}  # all 16 were thinking at once


@pytest.mark.parametrize("flag", [1, "yes", "true", None])
async def test_body_types_are_taken_as_documented(client, session, admin, flag):
    response = await client.post(
        "/api/sites", json={"name": "Lab", "url": "http://127.0.0.1:9/", "allowPrivate": flag}, headers=admin
    )
    assert _is_json_error(response, 400) and "allowPrivate" in response.json()["message"], response.text
    assert (await session.exec(select(Site))).all() == []


# Digits that are not ASCII: str.isdigit() says yes to them, int() refuses the superscripts and circled ones.
@pytest.mark.parametrize("digit", ["\u00b2", "\u2460", "\u0663"])  # ², ①, Arabic-Indic 3
@pytest.mark.parametrize(
    ("method", "path", "body"),
    [
        ("GET", "/api/jobs/1/logs?after={}", None),
        ("GET", "/api/fixes?problemId={}", None),
        ("GET", "/api/fixes?limit={}", None),
        ("GET", "/api/fixes/problems?site={}", None),
        ("GET", "/api/notification-deliveries?limit={}", None),
        ("GET", "/api/notification-deliveries?channelId={}", None),
        ("POST", "/api/fixes", {"problemId": "{}"}),
        ("POST", "/api/code-project/save", {"projectId": "{}"}),
        ("POST", "/api/code-project/continue", {"projectId": "{}", "prompt": "Add a footer"}),
    ],
)
async def test_ids_and_numbers_are_ascii_digits_never_a_500(client, admin, digit, method, path, body):
    payload = json.loads(json.dumps(body).replace("{}", digit)) if body else None
    response = await client.request(method, path.format(digit), json=payload, headers=admin)
    assert _is_json_error(response, 400), (response.status_code, response.text)


async def test_text_with_a_nul_character_is_refused_before_any_route(client, admin):
    """PostgreSQL cannot store U+0000 in text: a prompt holding one answered 500 there (schemathesis found it)."""
    for response in (
        await client.post("/api/artifacts/create", headers=admin, json={"prompt": "a page\u0000"}),
        await client.post("/api/code-project/build", headers=admin, json={"prompt": "\u0000"}),
        await client.get("/api/history-logs?q=a%00b", headers=admin),
    ):
        assert response.status_code == 400
        assert response.json() == {"message": "text may not contain the NUL character (U+0000)"}
