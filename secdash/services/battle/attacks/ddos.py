"""DDoS: a burst of page requests from a few attacker clients; honest visitors view a few pages each. Stopped by
a per-client rate limit on pages."""

from __future__ import annotations

from secdash.services.battle.defense import DefenseConfig, RateLimit
from secdash.services.battle.traffic import Attack, DrillRequest, Requests, Technique, attack, benign, visitor

ATTACKERS = 3
PER_ATTACKER = 50
VISITORS = 20
VIEWS_PER_VISITOR = 2
PAGE_LIMIT = (10, 60)  # requests per client, window seconds


def requests(_slug: str) -> Requests:
    attacks = [
        attack(n % ATTACKERS, "GET", "/", f"flood page {n + 1}", params=(("page", str(n)),))
        for n in range(ATTACKERS * PER_ATTACKER)
    ]
    honest = [
        benign(visitor(v), "GET", "/" if view == 0 else "/index.html", f"page view {v + 1}.{view + 1}")
        for v in range(VISITORS)
        for view in range(VIEWS_PER_VISITOR)
    ]
    return attacks, honest


def recipe(_slug: str) -> tuple[DefenseConfig, str]:
    limit, window = PAGE_LIMIT
    config = DefenseConfig(rate_limits=[RateLimit(name="page-flood", requests=limit, window_seconds=window, endpoints=["pages"])])
    return config, (
        f"Rate-limit page requests to {limit} per client per {window} s: a flooding client is cut off "
        "after its first pages, visitors browsing a few pages are never slowed."
    )


def damage(request: DrillRequest, status: int, _body: str, _slug: str) -> str | None:
    return "served during flood" if request.method == "GET" and status == 200 else None


# An HTTP flood of page requests exhausts the web service, not the network link: T1499.002 names HTTP floods
# explicitly; T1498 (Network Denial of Service) is about saturating bandwidth.
ATTACK = Attack(
    id="ddos",
    label="DDoS Attack",
    icon="zap",
    description="A burst of page requests from a few attacker clients",
    technique=Technique(
        "T1499.002", "Endpoint Denial of Service: Service Exhaustion Flood", "https://attack.mitre.org/techniques/T1499/002/"
    ),
    specialist="stock",
    endpoint="pages",
    defense_part="rate_limits",
    requests=requests,
    recipe=recipe,
    damage=damage,
    # Gem answers each page after 2.5 s; 190 requests 50 at a time is 4 rounds (about 10 s) at worst.
    concurrency=50,
    max_per_second=100.0,
)
