"""Defense chats and agents through the API, with the offline engine and a configured model."""

from __future__ import annotations

import pytest
from sqlmodel import select

from secdash.models import DefenseChatMessage, HistoryLog
from tests.api.conftest import signed_in
from tests.support.fake_openai import FakeOpenAI


@pytest.fixture
async def headers(client, session):
    return await signed_in(client, session, "ops@example.com", "admin")


async def test_widget_conversation_is_stored_and_read_back_oldest_first(client, session, headers):
    sent = await client.post("/api/defense-chat/message", json={"content": "  How do we stop a DDoS?  "}, headers=headers)
    assert sent.status_code == 200
    assert "CDN or scrubbing" in sent.json()["content"] and sent.json()["provider"] == "offline"
    messages = (await client.get("/api/defense-chat/messages", headers=headers)).json()
    assert [m["role"] for m in messages] == ["user", "assistant"]
    assert messages[0]["content"] == "How do we stop a DDoS?"
    assert set(messages[0]) >= {"id", "role", "content", "timestamp"}


async def test_every_ai_call_is_audited_without_the_prompt(client, session, headers):
    await client.post("/api/defense-chat", json={"message": "secret plan: phishing drill", "agentId": "tour"}, headers=headers)
    logs = (await session.exec(select(HistoryLog).where(HistoryLog.category == "ai"))).all()
    assert len(logs) == 1
    details = logs[0].details
    assert details["agent"] == "tour" and details["provider"] == "offline" and details["outcome"] == "ok"
    assert details["characters"] > 0 and details["latencyMs"] >= 0
    assert "secret plan" not in str(details) and "secret plan" not in logs[0].description


async def test_defense_chat_returns_response_and_threat_level(client, headers):
    body = (
        await client.post(
            "/api/defense-chat", json={"message": "Ransomware is encrypting our server", "agentId": "gem"}, headers=headers
        )
    ).json()
    assert body["threatLevel"] == "critical" and "Isolate the affected host" in body["response"]


async def test_ai_chat_takes_platform_agents_only(client, headers):
    ok = await client.post("/api/ai-chat", json={"agentId": "shares", "message": "sql injection in search"}, headers=headers)
    assert ok.status_code == 200 and "parameterized queries" in ok.json()["response"]
    assert set(ok.json()) == {"response"}
    bad = await client.post("/api/ai-chat", json={"agentId": "general", "message": "hi"}, headers=headers)
    assert bad.status_code == 400 and "agentId" in bad.json()["message"]


@pytest.mark.parametrize(
    ("payload", "field"),
    [
        ({"message": "   ", "agentId": "stock"}, "blank"),
        ({"message": "x" * 4001, "agentId": "stock"}, "at most 4000"),
        ({"message": "hi", "agentId": "nope"}, "agentId"),
    ],
)
async def test_bad_messages_are_400_and_nothing_is_stored(client, session, headers, payload, field):
    response = await client.post("/api/defense-chat", json=payload, headers=headers)
    assert response.status_code == 400 and field in response.json()["message"]
    assert (await session.exec(select(DefenseChatMessage))).all() == []


async def test_agent_lists(client, headers):
    agents = (await client.get("/api/ai-agents", headers=headers)).json()
    assert [a["id"] for a in agents] == ["stock", "tour", "gem", "shares"]
    assert all(a["status"] == "monitoring" and a["threatsBlocked"] == 0 for a in agents)
    defense = (await client.get("/api/defense-agents", headers=headers)).json()
    assert set(defense[0]) == {"id", "agentName", "threatsBlocked"}


async def test_configured_model_answers_and_judges_the_threat(client, session, headers, settings, monkeypatch):
    fake = FakeOpenAI()
    try:
        monkeypatch.setattr(settings, "LLM_BASE_URL", fake.base_url)
        monkeypatch.setattr(settings, "LLM_MODEL", "threat-critical")
        body = (
            await client.post("/api/defense-chat", json={"message": "routine status check", "agentId": "stock"}, headers=headers)
        ).json()
    finally:
        fake.close()
    assert body["response"] == "You said: routine status check"
    assert body["threatLevel"] == "critical"  # the model's judgement raised the rules' "low"
    system = fake.requests[0]["body"]["messages"][0]
    assert system["role"] == "system" and "Stock Defense AI" in system["content"]
    log = (await session.exec(select(HistoryLog).where(HistoryLog.category == "ai"))).one()
    assert log.details["provider"] == "openai-compatible" and log.details["model"] == "threat-critical"


async def test_model_failure_is_a_clear_error_and_audited(client, session, headers, settings, monkeypatch):
    fake = FakeOpenAI()
    try:
        monkeypatch.setattr(settings, "LLM_BASE_URL", fake.base_url)
        monkeypatch.setattr(settings, "LLM_MODEL", "ratelimited")
        response = await client.post("/api/defense-chat", json={"message": "hi", "agentId": "stock"}, headers=headers)
    finally:
        fake.close()
    assert response.status_code == 503
    assert "rate-limiting" in response.json()["message"]
    log = (await session.exec(select(HistoryLog).where(HistoryLog.category == "ai"))).one()
    assert log.details["outcome"] == "rate_limit" and log.severity == "error"
