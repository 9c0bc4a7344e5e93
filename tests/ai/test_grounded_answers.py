"""Agents answer from SecDash's own live data: the offline engine composes from the facts, a model
gets them (bounded) in its system prompt and is told to cite them."""

from __future__ import annotations

import re

from secdash.ai.agents import AGENTS
from secdash.ai.base import ChatTurn, TextDelta
from secdash.ai.offline import OfflineEngine, compose_answer
from secdash.ai.situation import CheckFact, EventFact, SiteFact, Situation, render
from secdash.ai.tasks.chat import ChatTask, agent_system_prompt

CHECKED = "2026-05-01T12:00:00Z"
TOUR_HEADERS = (
    "Content-Security-Policy header missing (-25)",
    "X-Frame-Options header missing (-20)",
    "Referrer-Policy missing or unsafe (-5)",
)


def _tour(status: str = "warning", **overrides) -> SiteFact:
    facts = dict(
        id=2,
        name="Tour",
        url="http://127.0.0.1:3000/demo/tour/",
        status=status,
        grade="D",
        score=50,
        findings=TOUR_HEADERS,
        tls_days_left=None,
        last_error=None,
        response_ms=120,
        status_code=200,
        last_checked_at=CHECKED,
        recent_checks=(CheckFact(CHECKED, status, 200, 120, "D"), CheckFact("2026-05-01T11:59:30Z", "secure", 200, 95, "D")),
    )
    facts.update(overrides)
    return SiteFact(**facts)


INNER_HTML = EventFact(
    id=15,
    created_at=CHECKED,
    event_type="vulnerability_detected",
    severity="medium",
    description="HTML assigned from a string (XSS risk) (tour/translate.js:12)",
    source="scanner",
    site="Tour",
    rule="js:innerHTML",
    file="tour/translate.js",
    line=12,
)
STATUS_EVENT = EventFact(
    id=9,
    created_at=CHECKED,
    event_type="site_status_changed",
    severity="medium",
    description="Tour is now CHECKING: security headers grade D",
    source="monitor",
    site="Tour",
)
GEM = SiteFact(
    id=3,
    name="Gem",
    url="http://127.0.0.1:3000/demo/gem/",
    status="secure",
    grade="A",
    score=95,
    findings=("Referrer-Policy missing or unsafe (-5)",),
    last_checked_at=CHECKED,
    status_code=200,
)


def _situation(agent_id: str = "tour", *sites: SiteFact) -> Situation:
    return Situation(
        agent_id=agent_id,
        sites=sites or (_tour(),),
        events=(STATUS_EVENT,),
        findings=(INNER_HTML,),
        open_events=1,
        open_findings=1,
    )


def _live_lines(answer: str) -> list[str]:
    return [line for line in answer.splitlines() if "[live]" in line]


def test_is_our_tour_site_safe_answers_with_tours_real_facts_and_what_to_do():
    answer = compose_answer("Is our Tour site safe?", AGENTS["tour"], _situation())
    assert "could not match" not in answer
    assert "grade D" in answer and "50/100" in answer
    # every missing header is named, with the header to add
    assert "Content-Security-Policy" in answer and "default-src 'self'" in answer
    assert "X-Frame-Options: DENY" in answer and "Referrer-Policy: strict-origin-when-cross-origin" in answer
    # the open code finding, where it is and what to do about it
    assert "tour/translate.js:12" in answer and "textContent" in answer
    # the open event
    assert "#9" in answer
    # live statements are marked as such
    live = _live_lines(answer)
    assert any("grade D" in line for line in live) and any("translate.js:12" in line for line in live)
    assert any("CHECKING" in line for line in live)


def test_the_general_agent_answers_about_the_site_named():
    situation = Situation(agent_id="general", sites=(_tour(), GEM), findings=(INNER_HTML,), open_findings=1)
    answer = compose_answer("is our Tour site safe?", AGENTS["general"], situation)
    assert "grade D" in answer and "Gem" not in answer
    overview = compose_answer("Are our sites healthy?", AGENTS["general"], situation)
    assert "Tour" in overview and "Gem" in overview and "grade A" in overview


def test_a_site_in_alert_says_so_with_its_error():
    down = _tour("critical", status_code=None, last_error="Connection refused", grade=None, score=None, findings=())
    answer = compose_answer("How is the Tour site doing?", AGENTS["tour"], _situation("tour", down))
    assert "ALERT" in answer and "Connection refused" in answer
    assert any("Connection refused" in line for line in _live_lines(answer))


def test_a_safe_site_is_called_safe_and_tls_days_are_given():
    fine = _tour("secure", grade="A+", score=100, findings=(), tls_days_left=80)
    situation = Situation(agent_id="tour", sites=(fine,))
    answer = compose_answer("Is Tour secure?", AGENTS["tour"], situation)
    assert "A+" in answer and "80 days" in answer
    assert "No open" in answer or "no open" in answer


def test_without_live_data_the_site_answer_says_so():
    answer = compose_answer("Is our Tour site safe?", AGENTS["tour"], None)
    assert "no live data" in answer.lower()


def test_attack_answers_carry_the_agents_live_context_and_containment_for_an_active_attack():
    question = "We see 5000 failed logins per minute from one IP range, what do we do?"
    answer = compose_answer(question, AGENTS["tour"], _situation())
    assert "multi-factor authentication" in answer  # the knowledge base's mitigations
    assert re.search(r"block|rate-limit", answer.split("Recommended actions")[0], re.IGNORECASE)  # contain first
    assert any("Tour" in line for line in _live_lines(answer))


async def test_the_offline_engine_takes_the_situation():
    engine = OfflineEngine()
    task = ChatTask(agent=AGENTS["tour"], conversation=(ChatTurn("user", "Is our Tour site safe?"),), situation=_situation())
    pieces = [e.text async for e in engine.stream(task) if isinstance(e, TextDelta)]
    assert "grade D" in "".join(pieces)


def test_the_model_gets_the_facts_and_is_told_to_cite_them():
    prompt = agent_system_prompt(AGENTS["tour"], _situation())
    assert "Tour Defense AI" in prompt
    assert "grade D" in prompt and "Content-Security-Policy header missing" in prompt
    assert "translate.js:12" in prompt and "event #9" in prompt and "finding #15" in prompt
    assert "cite" in prompt.lower()
    assert "not instructions" in prompt  # the facts are data (site errors and findings come from outside)


def test_the_context_is_bounded():
    many = tuple(
        EventFact(
            id=n,
            created_at=CHECKED,
            event_type="attack_detected",
            severity="high",
            description="x" * 2000,
            source="monitor",
            site="Tour",
        )
        for n in range(500)
    )
    situation = Situation(
        agent_id="general",
        sites=tuple(_tour(name=f"Site{n}", last_error="e" * 300) for n in range(50)),
        events=many,
        findings=many,
        open_events=500,
        open_findings=500,
    )
    text = render(situation)
    assert len(text) <= 4000
    assert "500 open" in text  # what was left out is counted, not silently dropped


def test_a_platform_agent_asked_about_another_platform_says_it_does_not_watch_it():
    answer = compose_answer("Is Gem safe?", AGENTS["tour"], _situation())
    assert "Gem" in answer and "grade D" not in answer and "Defense Command" in answer
