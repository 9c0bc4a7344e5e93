"""Chats are grounded in live data end to end: the offline engine answers from it, a model gets it,
and the threat level follows the situation."""

from __future__ import annotations

from secdash.ai.base import Done, Structured, TextDelta
from secdash.core.unit import commit
from secdash.models import Site, utcnow
from secdash.services.agents import defense_chat
from tests.factories import make_user

HEADERS = ["Content-Security-Policy header missing (-25)", "X-Frame-Options header missing (-20)"]


async def _tour(session, status="warning"):
    site = Site(
        name="Tour",
        domain="127.0.0.1:3000",
        url="http://127.0.0.1:3000/demo/tour/",
        status=status,
        grade="D",
        score=55,
        findings=HEADERS,
        response_time_ms=140,
        status_code=200,
        last_checked_at=utcnow(),
        is_demo=True,
    )
    session.add(site)
    await commit(session)
    return site


class RecordingModel:
    """A model that records the system prompt of each task it was given (the situation reaches a model
    only through the prompt)."""

    name = "recording"
    model = "recording-1"

    def __init__(self, judged: str = "low") -> None:
        self.systems: list[str] = []
        self.threat_systems: list[str] = []
        self.judged = judged

    async def stream(self, task):
        self.systems.append(task.messages()[0]["content"])
        yield TextDelta("Noted.")
        yield Done()

    async def structured(self, task, schema):
        self.threat_systems.append(task.messages()[0]["content"])
        return Structured(schema.model_validate({"threatLevel": self.judged, "reason": "x"}))


async def test_is_our_tour_site_safe_is_answered_from_tours_live_data(session, settings):
    await _tour(session)
    user = await make_user(session)
    done = await defense_chat.reply(
        user=user, content="Is our Tour site safe?", agent_id="tour", surface="api", settings=settings
    )
    assert "could not match" not in done.content
    assert "grade D" in done.content and "Content-Security-Policy" in done.content and "[live]" in done.content
    assert done.threat_level == "medium"  # Tour is CHECKING after a probe


async def test_a_hypothetical_is_low_and_an_active_brute_force_is_high(session, settings):
    user = await make_user(session)
    asked = await defense_chat.reply(
        user=user, content="is there a DDoS risk?", agent_id="stock", surface="api", settings=settings
    )
    seen = await defense_chat.reply(
        user=user,
        content="we see 5000 failed logins per minute from one IP range, what do we do?",
        agent_id="stock",
        surface="api",
        settings=settings,
    )
    assert asked.threat_level == "low"
    assert seen.threat_level == "high" and "multi-factor authentication" in seen.content


async def test_a_site_in_alert_raises_its_agents_level(session, settings):
    await _tour(session, status="critical")
    user = await make_user(session)
    done = await defense_chat.reply(user=user, content="What is XSS?", agent_id="tour", surface="api", settings=settings)
    assert done.threat_level == "high"


async def test_a_model_gets_the_situation_and_cannot_escalate_a_hypothetical(session, settings):
    await _tour(session)
    user = await make_user(session)
    model = RecordingModel(judged="critical")
    done = await defense_chat.reply(
        user=user, content="is there a DDoS risk?", agent_id="tour", surface="api", settings=settings, provider=model
    )
    assert done.content == "Noted."
    system = model.systems[0]
    assert "Tour Defense AI" in system and "grade D" in system and "Content-Security-Policy header missing" in system
    assert "cite" in system.lower()
    assert "hypothetical" in model.threat_systems[0] and "grade D" in model.threat_systems[0]
    assert done.threat_level == "medium"  # the model's "critical" is capped: nothing is happening
