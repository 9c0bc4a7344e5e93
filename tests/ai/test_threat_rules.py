"""Threat level from the situation, not from words alone (the rules are in secdash/ai/threat.py)."""

from __future__ import annotations

import pytest

from secdash.ai import threat
from secdash.ai.situation import SiteFact, Situation

CHECKED = "2026-05-01T12:00:00Z"


def _site(name: str, status: str, *, checked: str | None = CHECKED, **facts) -> SiteFact:
    return SiteFact(
        id=1, name=name, url=f"http://127.0.0.1:3000/demo/{name.lower()}/", status=status, last_checked_at=checked, **facts
    )


def _situation(agent_id: str, *sites: SiteFact) -> Situation:
    return Situation(agent_id=agent_id, sites=sites)


@pytest.mark.parametrize(
    ("text", "level"),
    [
        # a question about a hypothetical, or knowledge, is not an incident
        ("is there a DDoS risk?", "low"),
        ("What is XSS?", "low"),
        ("How do we prevent SQL injection?", "low"),
        ("Could ransomware hit us?", "low"),
        ("Explain credential stuffing", "low"),
        ("What if attackers flooded the booking API?", "low"),
        ("Good morning, status please", "low"),
        # something that happened or is seen, without numbers or "now": the words' own level
        ("Brute force attempts on admin login", "high"),
        ("an attack on the stock api", "high"),
        ("Staff received a phishing email", "high"),
        ("We noticed suspicious port scan activity", "medium"),
        ("Ransomware encrypted the file server, data exfiltration suspected", "critical"),
        # an active attack: numbers, present tense, "right now"
        ("we see 5000 failed logins per minute from one range", "high"),
        ("We see 5000 failed logins per minute from one IP range, what do we do?", "high"),
        ("Thousands of brute force login attempts", "high"),
        ("Millions of requests per second are hitting the checkout", "high"),
        ("Our login page is hit by a DDoS flood", "high"),
        ("Ransomware is encrypting the inventory server", "critical"),
        ("We were breached, what should I do?", "critical"),
        # active and hurting: the site is down or data is leaving
        ("our site is down and flooded right now", "critical"),
    ],
)
def test_level_of_a_message_alone(text, level):
    assert threat.judge(text).level == level


def test_the_two_cases_of_the_issue_are_fixed():
    """A brute-force incident was rated LOW and a hypothetical DDoS question raised the red toast."""
    incident = threat.judge("we see 5000 failed logins per minute from one IP range, what do we do?")
    hypothetical = threat.judge("is there a DDoS risk?")
    assert incident.level in ("high", "critical") and incident.mode == "active"
    assert hypothetical.level not in ("high", "critical") and hypothetical.mode == "hypothetical"


def test_a_question_naming_a_site_is_judged_by_that_site():
    """The general agent asked about Tour: Gem's ALERT is not what was asked about."""
    situation = _situation("general", _site("Gem", "critical"), _site("Tour", "secure", grade="A"))
    assert threat.judge("is our Tour site safe?", situation).level == "low"
    assert threat.judge("is Gem safe?", situation).level == "high"
    assert threat.judge("is everything fine?", situation).level == "high"


@pytest.mark.parametrize(
    ("agent_id", "site", "text", "level"),
    [
        ("tour", _site("Tour", "critical", status_code=503), "What is XSS?", "high"),  # ALERT: at least high
        ("tour", _site("Tour", "warning", grade="D"), "hello", "medium"),  # CHECKING after a probe: at least medium
        ("tour", _site("Tour", "warning", checked=None), "hello", "low"),  # never probed yet: no signal
        ("tour", _site("Tour", "secure", grade="A"), "is there a DDoS risk?", "low"),
        ("general", _site("Gem", "critical"), "any news?", "high"),  # the general agent watches every site
        ("tour", _site("Tour", "secure"), "Ransomware is encrypting the inventory server", "critical"),  # never lowers
    ],
)
def test_the_situation_raises_the_level(agent_id, site, text, level):
    judged = threat.judge(text, _situation(agent_id, site))
    assert judged.level == level
    if level != threat.judge(text).level:
        assert any(site.name in reason for reason in judged.reasons)


@pytest.mark.parametrize(
    ("text", "model_level", "level"),
    [
        ("is there a DDoS risk?", "high", "medium"),  # a model cannot turn a hypothetical into an incident
        ("an attack on the stock api", "high", "high"),
        ("routine status check", "critical", "critical"),  # the model may raise a statement
        ("Ransomware is encrypting the inventory server", "low", "critical"),  # and never lowers the rules
    ],
)
def test_the_models_judgement_is_combined_with_the_rules(text, model_level, level):
    assert threat.with_model(threat.judge(text), model_level) == level


def test_the_old_tuple_api_still_works():
    level, hits = threat.assess("Brute force attempts on admin login")
    assert level == "high" and hits
    assert threat.assess("Good morning")[0] == "low"


def test_the_rules_are_documented_in_the_module():
    doc = threat.__doc__ or ""
    for words in ("hypothetical", "active", "ALERT", "CHECKING", "model"):
        assert words in doc
