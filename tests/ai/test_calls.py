"""The instrumented wrapper: every call is admitted, timed and recorded (without its text), however
it ends; a follow-up call is recorded under its parent and not admitted again."""

from __future__ import annotations

import asyncio
from contextlib import asynccontextmanager

import pytest

from secdash.ai.base import Done, LLMError, TextDelta, Usage
from secdash.ai.calls import AICalls, CallRecord
from secdash.ai.offline import OfflineEngine
from secdash.ai.openai_compatible import OpenAICompatibleProvider
from secdash.ai.tasks.threat import ThreatAssessment, ThreatTask
from tests.ai.tasks_for_tests import AskTask, PageTask
from tests.support.fake_openai import FakeOpenAI

SECRET = "the launch code is 0000"


class Refused(Exception):
    pass


class Ledger:
    """The recorder and the budget, in memory: what the service layer gives the wrapper."""

    def __init__(self, budget: int = 100) -> None:
        self.records: list[CallRecord] = []
        self.budget = budget
        self.admitted = 0

    async def record(self, call: CallRecord) -> int:
        self.records.append(call)
        return len(self.records)

    @asynccontextmanager
    async def admit(self):
        if self.admitted >= self.budget:
            raise Refused("over budget")
        self.admitted += 1
        yield


@pytest.fixture
def fake():
    server = FakeOpenAI()
    yield server
    server.close()


def _calls(provider, ledger: Ledger) -> AICalls:
    return AICalls(provider, feature="chat", agent="tour", user_id=7, record=ledger.record, admit=ledger.admit)


def _model(fake, model="echo", timeout=5.0):
    return OpenAICompatibleProvider(base_url=fake.base_url, api_key="k", model=model, timeout=timeout)


async def test_a_streamed_call_is_recorded_with_tokens_latency_and_no_text(fake):
    ledger = Ledger()
    events = [e async for e in _calls(_model(fake), ledger).stream(AskTask(SECRET))]
    assert isinstance(events[-1], Done) and events[-1].call_id == 1
    assert any(isinstance(e, Usage) for e in events)
    [record] = ledger.records
    assert (record.feature, record.task, record.agent, record.user_id) == ("chat", "ask", "tour", 7)
    assert (record.provider, record.model, record.outcome, record.error_kind) == ("openai-compatible", "echo", "ok", None)
    assert record.prompt_tokens == 5 and record.completion_tokens == 7  # "You said: the launch code is 0000"
    assert record.first_token_ms is not None and 0 <= record.first_token_ms <= record.total_ms
    assert record.characters == len(f"You said: {SECRET}")
    assert SECRET not in repr(record) and "0000" not in repr(record)


async def test_a_failed_call_is_recorded_as_an_error_with_its_kind(fake):
    ledger = Ledger()
    with pytest.raises(LLMError):
        _ = [e async for e in _calls(_model(fake, "ratelimited"), ledger).stream(AskTask("hi"))]
    with pytest.raises(LLMError):
        await _calls(_model(fake, "wrongjson"), ledger).structured(ThreatTask("hi"), ThreatAssessment)
    assert [(r.outcome, r.error_kind, r.first_token_ms) for r in ledger.records] == [
        ("error", "rate_limit", None),
        ("error", "format", None),
    ]


async def test_a_stopped_stream_is_recorded_as_stopped_and_closes_upstream(fake):
    ledger = Ledger()
    stream = _calls(_model(fake, "slow"), ledger).stream(AskTask("long answer please"))
    first = await stream.__anext__()
    await stream.aclose()
    assert isinstance(first, TextDelta)
    [record] = ledger.records
    assert record.outcome == "stopped" and record.first_token_ms is not None
    for _ in range(40):
        if fake.cancelled:
            break
        await asyncio.sleep(0.05)
    assert fake.cancelled == 1


async def test_every_call_is_admitted_and_a_refused_one_never_starts(fake):
    ledger = Ledger(budget=2)
    calls = _calls(_model(fake), ledger)
    await calls.structured(ThreatTask("a"), ThreatAssessment)
    _ = [e async for e in calls.stream(AskTask("b"))]
    sent = len(fake.requests)
    with pytest.raises(Refused):
        await calls.structured(ThreatTask("c"), ThreatAssessment)
    with pytest.raises(Refused):
        _ = [e async for e in calls.stream(AskTask("d"))]
    assert ledger.admitted == 2 and len(fake.requests) == sent and len(ledger.records) == 2


async def test_admitted_ahead_covers_exactly_one_call():
    ledger = Ledger()
    calls = _calls(OfflineEngine(), ledger)
    async with calls.admitted():
        assert ledger.admitted == 1
        _ = [e async for e in calls.stream(PageTask("x"))]
        assert ledger.admitted == 1  # the call used the budget taken ahead
        _ = [e async for e in calls.stream(PageTask("y"))]
        assert ledger.admitted == 2  # a second call inside is admitted on its own


async def test_a_follow_up_is_recorded_under_its_parent_without_new_admission():
    ledger = Ledger()
    calls = _calls(OfflineEngine(), ledger)
    done = [e async for e in calls.stream(PageTask("x"))][-1]
    judged = await calls.structured(ThreatTask("we see 5000 failed logins per minute"), ThreatAssessment, follows=done.call_id)
    assert judged.threatLevel == "high"
    assert ledger.admitted == 1
    assert [(r.task, r.parent_id, r.provider) for r in ledger.records] == [("page", None, "offline"), ("threat", 1, "offline")]
    with pytest.raises(ValueError, match="follow"):
        await calls.structured(ThreatTask("x"), ThreatAssessment, follows=99)  # not a call of this wrapper
