"""The offline engine answers from its knowledge base: relevant, per agent, deterministic."""

from __future__ import annotations

import pytest

from secdash.ai import threat
from secdash.ai.agents import AGENTS, PLATFORM_AGENT_IDS
from secdash.ai.base import ChatTurn, Done, TextDelta
from secdash.ai.offline import OfflineEngine, compose_answer
from secdash.ai.tasks.chat import ChatTask

ATTACK_QUESTIONS = {
    "ddos": ("Our login page is hit by a DDoS flood", "CDN or scrubbing"),
    "sql_injection": ("Someone tried ' or 1=1 SQL injection on search", "parameterized queries"),
    "xss": ("A comment field executed script: XSS?", "Content-Security-Policy"),
    "malware": ("We found a web shell on the upload server", "Isolate the affected host"),
    "brute_force": ("Thousands of brute force login attempts", "multi-factor authentication"),
    "phishing": ("Staff got a phishing email with a fake login", "DMARC"),
}


async def _answer(question: str, agent_id: str = "general") -> str:
    return "".join(await _pieces(question, agent_id))


async def _pieces(question: str, agent_id: str) -> list[str]:
    task = ChatTask(agent=AGENTS[agent_id], conversation=(ChatTurn("user", question),))
    events = [event async for event in OfflineEngine().stream(task)]
    assert isinstance(events[-1], Done)
    return [event.text for event in events if isinstance(event, TextDelta)]


@pytest.mark.parametrize("attack", list(ATTACK_QUESTIONS))
async def test_each_attack_type_gets_its_mitigations(attack):
    question, mitigation = ATTACK_QUESTIONS[attack]
    assert mitigation in await _answer(question)


@pytest.mark.parametrize("agent_id", PLATFORM_AGENT_IDS)
async def test_each_platform_agent_answers_in_its_own_name_and_focus(agent_id):
    agent = AGENTS[agent_id]
    answer = await _answer("What should we prioritise?", agent_id)
    assert answer.startswith(f"**{agent.name}**")
    assert agent.platform in answer  # its own priorities when nothing specific was asked


def test_owasp_headers_and_incident_response_are_covered():
    general = AGENTS["general"]
    assert "Strict-Transport-Security" in compose_answer("Which security headers should we send?", general)
    assert "Contain first" in compose_answer("We were breached, what should I do?", general)
    assert "Refuse private and link-local" in compose_answer("Is our URL fetcher open to SSRF?", general)


async def test_answers_are_deterministic_and_streamed_in_pieces():
    pieces = await _pieces("xss in search", "tour")
    assert len(pieces) > 10
    assert "".join(pieces) == await _answer("xss in search", "tour")


@pytest.mark.parametrize(
    ("text", "level"),
    [
        ("Good morning, status please", "low"),
        ("We noticed suspicious port scan activity", "medium"),
        ("Brute force attempts on admin login", "high"),
        ("Ransomware encrypted the file server, data exfiltration suspected", "critical"),
    ],
)
def test_threat_level_rules(text, level):
    assert threat.assess(text)[0] == level


def test_highest_level():
    assert threat.highest("low", "critical", "medium") == "critical"
