"""The offline engine speaks the provider interface: the same typed events and structured objects
as a model, deterministically."""

from __future__ import annotations

import pytest

from secdash.ai.agents import AGENTS
from secdash.ai.base import ChatTurn, Done, FileContent, FileEnd, FileStart, LLMError, TextDelta, Usage
from secdash.ai.offline import OfflineEngine
from secdash.ai.situation import SiteFact, Situation
from secdash.ai.tasks.chat import ChatTask
from secdash.ai.tasks.threat import ThreatAssessment, ThreatTask
from tests.ai.tasks_for_tests import AskTask, PageTask


async def _events(task) -> list:
    return [event async for event in OfflineEngine().stream(task)]


async def test_a_chat_answer_is_text_deltas_then_done_without_usage():
    events = await _events(ChatTask(agent=AGENTS["stock"], conversation=(ChatTurn("user", "How do we stop a DDoS?"),)))
    assert isinstance(events[-1], Done) and events[-1].finish_reason == "stop"
    assert all(isinstance(e, TextDelta) for e in events[:-1]) and len(events) > 10
    assert not any(isinstance(e, Usage) for e in events)  # no tokens to report
    assert "CDN or scrubbing" in "".join(e.text for e in events[:-1])


async def test_a_multi_file_task_streams_file_events():
    events = await _events(PageTask("a landing page"))
    assert [(type(e).__name__, e.path) for e in events if isinstance(e, FileStart | FileEnd)] == [
        ("FileStart", "index.html"),
        ("FileEnd", "index.html"),
        ("FileStart", "css/site.css"),
        ("FileEnd", "css/site.css"),
    ]
    content = "".join(e.text for e in events if isinstance(e, FileContent) and e.path == "index.html")
    assert content == "<h1>Hello</h1>\n<p>offline</p>\n"
    assert "".join(e.text for e in events if isinstance(e, TextDelta)) == "Here is the site.\nDone.\n"


@pytest.mark.parametrize(
    ("message", "level"),
    [
        ("is there a DDoS risk?", "low"),
        ("we see 5000 failed logins per minute", "high"),
        ("Ransomware is encrypting the file server", "critical"),
    ],
)
async def test_the_structured_threat_judgement_is_the_rules_one_every_time(message, level):
    tour = SiteFact(id=1, name="Tour", url="http://t", status="secure", last_checked_at="2026-05-01T12:00:00Z")
    task = ThreatTask(message, situation=Situation(agent_id="tour", sites=(tour,)), agent_id="tour")
    first = await OfflineEngine().structured(task, ThreatAssessment)
    second = await OfflineEngine().structured(task, ThreatAssessment)
    assert isinstance(first.value, ThreatAssessment) and first.value == second.value
    assert first.value.threatLevel == level == task.rules().level and first.usage is None


async def test_a_task_without_an_offline_side_is_a_clear_error():
    with pytest.raises(LLMError) as error:
        await _events(AskTask("hi"))
    assert error.value.kind == "bad_request" and "offline engine" in error.value.message
