"""The drills' traffic: a fixed attack corpus and a benign corpus per attack type and demo site (pure,
deterministic, no I/O). What each type sends lives in its module (services/battle/attacks/).

The benign corpus is what honest visitors do on the same endpoint. Benign requests are interleaved with the
attack in a fixed pseudo-random order that keeps each list's own order, so a defense cannot win by the order of
the traffic.

`damage()` reads what an attack request that got through really did from the demo site's answer.
"""

from __future__ import annotations

import random

from secdash.services.battle import attacks, demo_app
from secdash.services.battle.traffic import MAX_REQUESTS, Corpus, DrillRequest


def interleave(attack: list[DrillRequest], benign: list[DrillRequest], seed: str) -> tuple[DrillRequest, ...]:
    """Attack and benign requests mixed in a fixed pseudo-random order that keeps each list's own order."""
    slots = ["a"] * len(attack) + ["b"] * len(benign)
    random.Random(seed).shuffle(slots)
    a, b = iter(attack), iter(benign)
    return tuple(next(a) if slot == "a" else next(b) for slot in slots)


def corpus(attack_type: str, slug: str) -> Corpus:
    """The fixed drill traffic of `attack_type` against demo site `slug` (ValueError for an unknown type)."""
    kind = attacks.get(attack_type)
    if slug not in demo_app.BRAND_DOMAINS:
        raise ValueError(f"no demo site {slug[:40]!r}; demo sites: {', '.join(demo_app.BRAND_DOMAINS)}")
    attack, benign = kind.requests(slug)
    requests = interleave(attack, benign, f"secdash-drill:{attack_type}:{slug}")
    assert len(requests) <= MAX_REQUESTS, f"{attack_type} corpus has {len(requests)} requests"
    return Corpus(attack_type, kind.endpoint, requests, kind.concurrency, kind.max_per_second)


def payload(request: DrillRequest) -> str:
    """The part of a request that carries the attack (or the honest input), for logs and findings."""
    if request.upload is not None:
        name, content, ctype = request.upload
        return f"{name} ({ctype}, {len(content)} bytes)"
    fields = dict(request.params) | dict(request.form)
    for key in ("q", "text", "url"):
        if key in fields:
            return fields[key]
    if "password" in fields:
        return f"{fields.get('username', '')} / {fields['password']}"
    return request.path + ("?" + "&".join(f"{k}={v}" for k, v in request.params) if request.params else "")


def damage(attack_type: str, request: DrillRequest, status: int, body: str, slug: str) -> str | None:
    """What an attack request of `attack_type` that got through did, read from the demo site's answer; None when
    nothing happened (blocked, an error, or benign traffic)."""
    if request.traffic != "attack" or status == 0:
        return None
    return attacks.get(attack_type).damage(request, status, body, slug)
