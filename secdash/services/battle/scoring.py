"""How a drill is scored: from the after-run's counts, as the demo site logged them.

effectiveness = round(100 x block rate x benign pass rate), where
- block rate = attack requests blocked / attack requests sent, and
- benign pass rate = benign requests let through / benign requests sent.

A defense that blocks everything blocks every attack (block rate 1) but also every visitor (pass rate 0)
and scores 0; one that blocks nothing scores 0 too. Multiplying (not averaging) means a defense has to do
both jobs: blocking 90% of attacks while losing 20% of visitors scores 72, not 85.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from secdash.services.battle.request_log import TrafficCounts

DEFENDED_SCORE = 50  # at or above: the operation's status is "defended"; below: "partial"


@dataclass(frozen=True)
class Score:
    block_rate: float
    benign_pass_rate: float
    effectiveness: int


def score(counts: TrafficCounts) -> Score:
    block_rate = counts.attack_blocked / counts.attack_sent if counts.attack_sent else 0.0
    benign_pass = counts.benign_passed / counts.benign_sent if counts.benign_sent else 1.0
    return Score(block_rate=block_rate, benign_pass_rate=benign_pass, effectiveness=round(100 * block_rate * benign_pass))


def counts_json(counts: TrafficCounts, damages: dict[str, int] | None = None) -> dict[str, Any]:
    """What an operation stores of one run."""
    return {
        "attackSent": counts.attack_sent,
        "attackBlocked": counts.attack_blocked,
        "benignSent": counts.benign_sent,
        "benignBlocked": counts.benign_blocked,
        "damage": dict(damages or {}),
    }


def counts_of(stored: dict[str, Any]) -> TrafficCounts:
    return TrafficCounts(
        attack_sent=int(stored.get("attackSent", 0)),
        attack_blocked=int(stored.get("attackBlocked", 0)),
        benign_sent=int(stored.get("benignSent", 0)),
        benign_blocked=int(stored.get("benignBlocked", 0)),
    )
