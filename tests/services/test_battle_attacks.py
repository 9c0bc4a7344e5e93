"""The attack types: one registry (services/battle/attacks/) in the spec's order with the spec's button texts,
the same six the database, the API and the page know."""

from __future__ import annotations

import random

import pytest

from secdash.ai.agents import AGENTS, PLATFORM_AGENT_IDS
from secdash.api.main import create_api
from secdash.models import AttackType
from secdash.services.battle import attacks, defense, drills
from secdash.services.errors import Invalid


def test_the_registry_lists_the_spec_attack_types_in_the_buttons_order():
    # Spec section 2 (the six buttons) and section 9 (the attack types).
    assert [a.label for a in attacks.ATTACKS] == [
        "DDoS Attack",
        "SQL Injection",
        "XSS Attack",
        "Malware",
        "Brute Force",
        "Phishing",
    ]
    assert list(attacks.IDS) == ["ddos", "sql_injection", "xss", "malware", "brute_force", "phishing"]
    assert set(attacks.IDS) == {t.value for t in AttackType}


def test_each_attack_module_says_everything_about_its_type():
    for attack in attacks.ATTACKS:
        assert attack.specialist in AGENTS and attack.endpoint in defense.ENDPOINTS and attack.icon and attack.description
        assert attack.technique.url.startswith("https://attack.mitre.org/techniques/T")
        config, how = attack.recipe("tour")
        assert getattr(config, attack.defense_part) and how


def test_the_api_documents_the_registrys_attack_types():
    document = create_api().openapi()
    body = document["components"]["schemas"]["DefendIn"]["properties"]["attackType"]
    assert body["enum"] == list(attacks.IDS)


def test_the_defender_is_the_agent_named_or_a_random_platform_agent():
    """Spec section 7: "a random agent is chosen for a defend request"; a drill attacks its agent's platform."""
    assert drills.defender("Tour") == ("tour", "tour")
    picked = {drills.defender(None, random.Random(seed)) for seed in range(40)} | {drills.defender("")}
    assert {agent for _slug, agent in picked} == set(PLATFORM_AGENT_IDS)
    assert all(slug == agent for slug, agent in picked)
    with pytest.raises(Invalid, match="aiAgentId"):
        drills.defender("example.com")
