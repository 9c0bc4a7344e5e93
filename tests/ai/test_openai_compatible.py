"""The OpenAI-compatible provider, through the real openai SDK, against a local test server."""

from __future__ import annotations

import asyncio

import pytest

from secdash.ai.base import ChatTurn, LLMError
from secdash.ai.openai_compatible import OpenAICompatibleProvider
from secdash.ai.prompts import ThreatAssessment
from secdash.ai.structured import parse_structured
from tests.support.fake_openai import FakeOpenAI


@pytest.fixture
def fake():
    server = FakeOpenAI()
    yield server
    server.close()


def _provider(fake, model="echo", timeout=5.0):
    return OpenAICompatibleProvider(base_url=fake.base_url, api_key="sk-test", model=model, timeout=timeout)


async def test_streamed_reply_arrives_in_pieces_with_the_system_prompt(fake):
    provider = _provider(fake)
    pieces = [p async for p in provider.stream_chat([ChatTurn("user", "status of Stock?")], system="be brief")]
    assert len(pieces) > 1 and "".join(pieces) == "You said: status of Stock?"
    sent = fake.requests[-1]
    assert sent["body"]["stream"] is True and sent["body"]["messages"][0] == {"role": "system", "content": "be brief"}
    assert sent["auth"] == "Bearer sk-test"


async def test_json_reply_is_parsed_and_repaired(fake):
    assert parse_structured(await _provider(fake).complete_json([ChatTurn("user", "x")]), ThreatAssessment).threatLevel == "low"
    fenced = await _provider(fake, "fencedjson").complete_json([ChatTurn("user", "x")])
    assert parse_structured(fenced, ThreatAssessment).threatLevel == "high"
    broken = await _provider(fake, "badjson").complete_json([ChatTurn("user", "x")])
    with pytest.raises(LLMError) as error:
        parse_structured(broken, ThreatAssessment)
    assert error.value.kind == "format"


@pytest.mark.parametrize(("model", "kind", "text"), [
    ("unauthorized", "auth", "refused the API key"),
    ("ratelimited", "rate_limit", "rate-limiting"),
    ("broken", "server", "HTTP 500"),
])
async def test_errors_become_clear_messages(fake, model, kind, text):
    with pytest.raises(LLMError) as error:
        _ = [p async for p in _provider(fake, model).stream_chat([ChatTurn("user", "hi")])]
    assert error.value.kind == kind and text in error.value.message
    assert "Traceback" not in error.value.message and "sk-test" not in error.value.message


async def test_unreachable_server_and_timeout(fake):
    gone = OpenAICompatibleProvider(base_url="http://127.0.0.1:9/v1", api_key="k", model="echo", timeout=2)
    with pytest.raises(LLMError) as error:
        _ = [p async for p in gone.stream_chat([ChatTurn("user", "hi")])]
    assert error.value.kind == "connection"
    slow = _provider(fake, "slow", timeout=0.05)
    with pytest.raises(LLMError) as late:
        _ = [p async for p in slow.stream_chat([ChatTurn("user", "hi")])]
    assert late.value.kind == "timeout"


async def test_stopping_a_slow_reply_closes_the_upstream_request(fake):
    stream = _provider(fake, "slow").stream_chat([ChatTurn("user", "long answer please")])
    received = [await stream.__anext__(), await stream.__anext__()]
    await stream.aclose()
    for _ in range(40):
        if fake.cancelled:
            break
        await asyncio.sleep(0.05)
    assert received and fake.cancelled == 1
    assert fake.pieces_sent < 50
