"""The shapes of a drill's traffic and of an attack type (pure): a request, a corpus, a MITRE ATT&CK technique,
and `Attack`, everything one attack type module (services/battle/attacks/) says about its kind.

A corpus is a bounded list of requests against one demo site's endpoint (at most MAX_REQUESTS, attack and
benign together). Attackers are logical clients 0..99, honest visitors 100..199 (a rate limit counts per client).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from secdash.services.battle.defense import DefenseConfig

MAX_REQUESTS = 300
ATTACKER_CLIENTS = range(0, 100)
VISITOR_CLIENTS = range(100, 200)
DEFAULT_CONCURRENCY = 8
DEFAULT_RATE = 60.0  # requests per second


@dataclass(frozen=True)
class Technique:
    """A MITRE ATT&CK technique (what the operation's attack is an instance of)."""

    id: str
    name: str
    url: str


@dataclass(frozen=True)
class DrillRequest:
    """One request of a drill, relative to /demo/{slug}."""

    traffic: Literal["attack", "benign"]
    client: int  # logical client: attackers 0..99, visitors 100..199
    method: str
    path: str  # "/", "/search", "/comment", "/login", "/upload", "/report-link"
    params: tuple[tuple[str, str], ...] = ()
    form: tuple[tuple[str, str], ...] = ()
    upload: tuple[str, bytes, str] | None = None  # (filename, content, content type): multipart field "file"
    label: str = ""  # short, for the live log


@dataclass(frozen=True)
class Corpus:
    attack_type: str
    endpoint: str  # the defense's endpoint name (defense.ENDPOINTS)
    requests: tuple[DrillRequest, ...]
    concurrency: int
    max_per_second: float

    @property
    def attack(self) -> tuple[DrillRequest, ...]:
        return tuple(r for r in self.requests if r.traffic == "attack")

    @property
    def benign(self) -> tuple[DrillRequest, ...]:
        return tuple(r for r in self.requests if r.traffic == "benign")


Requests = tuple[list[DrillRequest], list[DrillRequest]]  # (attack, benign), each in its own order


@dataclass(frozen=True)
class Attack:
    """One attack type, whole: what the page shows, what the drill sends, who specialises in it, how the offline
    engine defends against it and how its "defense code" is ordered."""

    id: str  # models.AttackType value, the API's attackType
    label: str  # the button, the operation and the toasts (spec section 2: exact texts)
    icon: str  # the button's icon (a lucide name)
    description: str  # what its drill sends, in a line
    technique: Technique
    specialist: str  # the platform agent whose profile specialises in it (secdash/ai/agents.py)
    endpoint: str  # the demo site endpoint it attacks (defense.ENDPOINTS)
    defense_part: Literal["patterns", "rate_limits", "uploads", "urls"]  # the part of a DefenseConfig that stops it
    requests: Callable[[str], Requests]  # the site's attack and benign traffic (slug -> requests)
    recipe: Callable[[str], tuple[DefenseConfig, str]]  # the offline engine's defense and how it works (slug -> ...)
    damage: Callable[[DrillRequest, int, str, str], str | None]  # (request, status, body, slug): what got through did
    concurrency: int = DEFAULT_CONCURRENCY
    max_per_second: float = DEFAULT_RATE


def attack(client: int, method: str, path: str, label: str, **kwargs: object) -> DrillRequest:
    return DrillRequest("attack", client, method, path, label=label[:80], **kwargs)  # type: ignore[arg-type]


def benign(client: int, method: str, path: str, label: str, **kwargs: object) -> DrillRequest:
    return DrillRequest("benign", client, method, path, label=label[:80], **kwargs)  # type: ignore[arg-type]


def visitor(index: int) -> int:
    return VISITOR_CLIENTS.start + index % len(VISITOR_CLIENTS)
