"""The OpenAI-compatible provider, through the real openai SDK, against a local test server: typed
events, token usage, structured output (JSON-schema mode, repair, clear errors), multi-file output."""

from __future__ import annotations

import asyncio

import pytest

from secdash.ai.base import Done, FileContent, FileEnd, FileStart, LLMError, TextDelta, Usage
from secdash.ai.files import file_block
from secdash.ai.openai_compatible import OpenAICompatibleProvider
from secdash.ai.tasks.threat import ThreatAssessment, ThreatTask
from tests.ai.tasks_for_tests import AskTask, PageTask
from tests.support.fake_openai import FakeOpenAI


@pytest.fixture
def fake():
    server = FakeOpenAI()
    yield server
    server.close()


def _provider(fake, model="echo", timeout=5.0):
    return OpenAICompatibleProvider(base_url=fake.base_url, api_key="sk-test", model=model, timeout=timeout)


async def _events(provider, task) -> list:
    return [event async for event in provider.stream(task)]


async def test_a_streamed_reply_is_text_deltas_then_usage_then_done(fake):
    events = await _events(_provider(fake), AskTask("status of Stock?", system_prompt="be brief"))
    deltas = [e for e in events if isinstance(e, TextDelta)]
    assert len(deltas) > 1 and "".join(d.text for d in deltas) == "You said: status of Stock?"
    assert isinstance(events[-1], Done) and isinstance(events[-2], Usage)
    assert events[-2].prompt_tokens == 5 and events[-2].completion_tokens == 5  # as the server counted them
    sent = fake.requests[-1]
    assert sent["body"]["stream"] is True and sent["body"]["stream_options"] == {"include_usage": True}
    assert sent["body"]["messages"][0] == {"role": "system", "content": "be brief"}
    assert sent["auth"] == "Bearer sk-test"


async def test_a_server_refusing_stream_options_still_streams_without_usage(fake):
    provider = _provider(fake, "nostreamusage")
    events = await _events(provider, AskTask("hi"))
    assert "".join(e.text for e in events if isinstance(e, TextDelta)) == "You said: hi"
    assert not any(isinstance(e, Usage) for e in events)
    await _events(provider, AskTask("again"))
    assert ["stream_options" in r["body"] for r in fake.requests] == [True, False, False]  # learned once


async def test_structured_output_uses_the_json_schema_mode(fake):
    value = await _provider(fake).structured(ThreatTask("an attack on the stock api"), ThreatAssessment)
    assert value.value.threatLevel == "high" and value.usage.prompt_tokens > 0
    sent = fake.requests[-1]["body"]
    assert sent["response_format"]["type"] == "json_schema"
    assert sent["response_format"]["json_schema"]["name"] == "ThreatAssessment"
    assert "threatLevel" in sent["response_format"]["json_schema"]["schema"]["properties"]


@pytest.mark.parametrize(("model", "level"), [("fencedjson", "high"), ("badjson", "high")])
async def test_fenced_or_broken_json_is_repaired(fake, model, level):
    assert (await _provider(fake, model).structured(ThreatTask("x"), ThreatAssessment)).value.threatLevel == level


@pytest.mark.parametrize(("model", "says"), [("wrongjson", "invalid: threatLevel"), ("prosejson", "expected format")])
async def test_an_answer_that_cannot_fit_the_schema_is_a_clear_format_error(fake, model, says):
    with pytest.raises(LLMError) as error:
        await _provider(fake, model).structured(ThreatTask("x"), ThreatAssessment)
    assert error.value.kind == "format" and says in error.value.message
    assert "Traceback" not in error.value.message


async def test_without_json_schema_mode_plain_generation_is_told_the_schema_and_repaired(fake):
    provider = _provider(fake, "nojsonschema")
    first = await provider.structured(ThreatTask("x"), ThreatAssessment)
    second = await provider.structured(ThreatTask("y"), ThreatAssessment)
    assert first.value.threatLevel == second.value.threatLevel == "medium"
    kinds = [r["body"].get("response_format", {}).get("type") for r in fake.requests]
    assert kinds == ["json_schema", None, None]  # refused once, then asked plainly
    assert "JSON schema" in fake.requests[-1]["body"]["messages"][0]["content"]


async def test_multi_file_output_becomes_file_events(fake):
    files = file_block("index.html", "<h1>Hi there</h1>\n<p>two words</p>") + file_block("app.js", "let a = 1;")
    events = await _events(_provider(fake), PageTask("Make these:\n" + files))
    kinds = [type(e).__name__ for e in events if not isinstance(e, FileContent | Usage)]
    assert kinds[0] == "TextDelta" and kinds[-1] == "Done"
    assert [k for k in kinds if k.startswith("File")] == ["FileStart", "FileEnd", "FileStart", "FileEnd"]
    assert [e.path for e in events if isinstance(e, FileStart)] == ["index.html", "app.js"]
    content = {}
    for event in events:
        if isinstance(event, FileContent):
            content[event.path] = content.get(event.path, "") + event.text
    assert content == {"index.html": "<h1>Hi there</h1>\n<p>two words</p>\n", "app.js": "let a = 1;\n"}
    assert all(e.complete for e in events if isinstance(e, FileEnd))
    assert "=== FILE:" in fake.requests[-1]["body"]["messages"][0]["content"]  # the task asked for the format


@pytest.mark.parametrize(
    ("model", "kind", "text"),
    [
        ("unauthorized", "auth", "refused the API key"),
        ("ratelimited", "rate_limit", "rate-limiting"),
        ("broken", "server", "HTTP 500"),
    ],
)
async def test_errors_become_clear_messages(fake, model, kind, text):
    with pytest.raises(LLMError) as error:
        await _events(_provider(fake, model), AskTask("hi"))
    assert error.value.kind == kind and text in error.value.message
    assert "Traceback" not in error.value.message and "sk-test" not in error.value.message
    with pytest.raises(LLMError) as structured:
        await _provider(fake, model).structured(ThreatTask("hi"), ThreatAssessment)
    assert structured.value.kind == kind


async def test_unreachable_server_and_timeout(fake):
    gone = OpenAICompatibleProvider(base_url="http://127.0.0.1:9/v1", api_key="k", model="echo", timeout=2)
    with pytest.raises(LLMError) as error:
        await _events(gone, AskTask("hi"))
    assert error.value.kind == "connection"
    with pytest.raises(LLMError) as late:
        await _events(_provider(fake, "slow", timeout=0.05), AskTask("hi"))
    assert late.value.kind == "timeout"


async def test_stopping_a_slow_reply_closes_the_upstream_request(fake):
    stream = _provider(fake, "slow").stream(AskTask("long answer please"))
    received = [await stream.__anext__(), await stream.__anext__()]
    await stream.aclose()
    for _ in range(40):
        if fake.cancelled:
            break
        await asyncio.sleep(0.05)
    assert all(isinstance(e, TextDelta) for e in received) and fake.cancelled == 1
    assert fake.pieces_sent < 50
