"""The attack types Battle Station drills run: one module per type holds everything about it (its id, label,
icon, MITRE technique, specialist agent, traffic, offline defense and what an attack that got through did), and
ATTACKS is the one list the drills, the threat simulation, the state, the page and the API read.

Adding an attack type: a module here, its entry in ATTACKS, and its value in models.AttackType (a database enum,
so with a migration).
"""

from __future__ import annotations

from secdash.services.battle.attacks import brute_force, ddos, malware, phishing, sql_injection, xss
from secdash.services.battle.traffic import Attack

# The spec's order (section 2: the six buttons): DDoS Attack, SQL Injection, XSS Attack, Malware, Brute Force, Phishing.
ATTACKS: tuple[Attack, ...] = (ddos.ATTACK, sql_injection.ATTACK, xss.ATTACK, malware.ATTACK, brute_force.ATTACK, phishing.ATTACK)
BY_ID: dict[str, Attack] = {attack.id: attack for attack in ATTACKS}
IDS: tuple[str, ...] = tuple(BY_ID)


def get(attack_type: str) -> Attack:
    """The attack type (ValueError for an unknown one)."""
    try:
        return BY_ID[attack_type]
    except (KeyError, TypeError):
        raise ValueError(f"unknown attack type {str(attack_type)[:40]!r}; attack types: {', '.join(IDS)}") from None


def label(attack_type: str) -> str:
    return get(attack_type).label
