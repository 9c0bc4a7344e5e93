"""AI call records and the per-user budget, through the real chat service and database: every model
call leaves a record (engine, tokens, latency, outcome; never the prompt or the reply) and is counted."""

from __future__ import annotations

import asyncio

import pytest
from sqlmodel import select

from secdash.ai.tasks.threat import ThreatAssessment, ThreatTask
from secdash.models import HistoryLog
from secdash.models.ai import AiCall
from secdash.services.agents import ai_calls, defense_chat
from secdash.services.errors import RateLimited
from tests.factories import make_user
from tests.support.fake_openai import FakeOpenAI

SECRET = "our vault password is hunter2"


@pytest.fixture
def model(settings, monkeypatch):
    """The configured engine is the local OpenAI-compatible test server; `use(name)` picks its model."""
    fake = FakeOpenAI()
    monkeypatch.setattr(settings, "LLM_BASE_URL", fake.base_url)

    def use(name: str) -> FakeOpenAI:
        monkeypatch.setattr(settings, "LLM_MODEL", name)
        return fake

    use("echo")
    yield use
    fake.close()


async def _calls(session) -> list[AiCall]:
    session.expire_all()
    return list(await session.exec(select(AiCall).order_by(AiCall.id)))


async def _ai_logs(session) -> list[HistoryLog]:
    session.expire_all()
    return list(await session.exec(select(HistoryLog).where(HistoryLog.category == "ai")))


async def test_a_chat_reply_records_the_reply_and_its_threat_judgement(session, settings, model):
    user = await make_user(session)
    done = await defense_chat.reply(user=user, content=SECRET, agent_id="tour", surface="api", settings=settings)
    assert done.content == f"You said: {SECRET}"
    reply, judgement = await _calls(session)
    assert (reply.feature, reply.task, reply.agent, reply.user_id, reply.outcome) == ("chat", "chat", "tour", user.id, "ok")
    assert (reply.provider, reply.model) == ("openai-compatible", "echo")
    assert reply.prompt_tokens > 5 and reply.completion_tokens == 7  # as the server reported them
    assert reply.first_token_ms is not None and 0 <= reply.first_token_ms <= reply.total_ms
    assert (judgement.task, judgement.parent_id, judgement.outcome) == ("threat", reply.id, "ok")
    assert judgement.prompt_tokens is not None and judgement.first_token_ms is None
    for row in (reply, judgement):
        assert "hunter2" not in str(row.model_dump())  # neither the prompt nor the reply is kept
    prompt_tokens = reply.prompt_tokens
    [log] = await _ai_logs(session)  # one audit entry per reply, as before
    assert log.action == "AI reply" and log.details["promptTokens"] == prompt_tokens
    assert "hunter2" not in str(log.details) and "hunter2" not in log.description


async def test_a_failed_call_is_recorded_as_an_error(session, settings, model):
    model("ratelimited")
    user = await make_user(session)
    with pytest.raises(Exception, match="rate-limiting"):
        await defense_chat.reply(user=user, content="hi", agent_id="stock", surface="api", settings=settings)
    [call] = await _calls(session)
    assert (call.outcome, call.error_kind, call.first_token_ms, call.completion_tokens) == ("error", "rate_limit", None, None)
    [log] = await _ai_logs(session)
    assert log.details["outcome"] == "rate_limit" and log.severity == "error"


async def test_a_stopped_reply_is_recorded_as_stopped(session, settings, model):
    fake = model("slow")
    user = await make_user(session)
    stream = defense_chat.stream_reply(
        user=user, content="tell me everything", agent_id="gem", surface="widget", settings=settings
    )
    pieces = [await stream.__anext__() for _ in range(3)]
    await stream.aclose()
    assert "".join(pieces).startswith("w0 w1")
    [call] = await _calls(session)
    assert call.outcome == "stopped" and call.error_kind is None and call.first_token_ms is not None
    [log] = await _ai_logs(session)
    assert log.details["outcome"] == "cancelled"  # as the audit trail has always called it
    for _ in range(40):
        if fake.cancelled:
            break
        await asyncio.sleep(0.05)
    assert fake.cancelled == 1


async def test_the_offline_engine_is_recorded_too(session, settings):
    user = await make_user(session)
    await defense_chat.reply(user=user, content="How do we stop a DDoS?", agent_id="stock", surface="api", settings=settings)
    reply, judgement = await _calls(session)
    assert (reply.provider, reply.model, reply.outcome) == ("offline", "secdash-knowledge-base", "ok")
    assert reply.prompt_tokens is None and reply.completion_tokens is None  # nothing to report
    assert judgement.parent_id == reply.id


async def test_every_call_through_the_wrapper_is_counted_against_the_users_budget(session, settings, monkeypatch):
    monkeypatch.setattr(settings, "AI_CALLS_PER_MINUTE", 2)
    user = await make_user(session)
    calls = ai_calls.for_user(settings=settings, user=user, feature="chat", agent="stock")
    for _ in range(2):
        await calls.structured(ThreatTask("a routine question"), ThreatAssessment)
    with pytest.raises(RateLimited) as refused:
        await calls.structured(ThreatTask("a routine question"), ThreatAssessment)
    assert "Too many AI requests. Try again in" in refused.value.message and refused.value.retry_after >= 1
    with pytest.raises(RateLimited):  # the chat shares the budget
        await defense_chat.reply(user=user, content="hi", agent_id="stock", surface="api", settings=settings)
    assert len(await _calls(session)) == 2  # refused calls never started


async def test_a_reply_and_its_judgement_cost_one_call_of_the_budget(session, settings, model, monkeypatch):
    monkeypatch.setattr(settings, "AI_CALLS_PER_MINUTE", 1)
    user = await make_user(session)
    await defense_chat.reply(user=user, content="an attack on the stock api", agent_id="stock", surface="api", settings=settings)
    assert [c.task for c in await _calls(session)] == ["chat", "threat"]
    with pytest.raises(RateLimited):
        await defense_chat.reply(user=user, content="again", agent_id="stock", surface="api", settings=settings)


async def test_recording_a_call_tells_open_pages(session):
    """AI Systems follows the ai_calls topic: a new call's figures show without waiting for a refresh."""
    from secdash.ai.calls import CallRecord
    from secdash.core import notify

    user = await make_user(session, "ops@example.com")
    async with notify.subscribe(ai_calls.TOPIC) as changes:
        await ai_calls.recorder(user)(
            CallRecord(
                feature="chat",
                task="chat",
                agent="gem",
                user_id=user.id,
                provider="offline",
                model="offline",
                outcome="ok",
                total_ms=12,
            )
        )
        assert ai_calls.TOPIC in await asyncio.wait_for(changes.wait(5), 5)
