"""The offline engine's defenses: a baseline's findings, the attack type's narrow recipe (its module in
services/battle/attacks/), merging a new defense into the deployed one, and the human-readable "defense code"
view of a configuration (pure).

The recipes are tuned against the drill corpora (each attack module's traffic): every benign request passes,
and the attack requests are blocked at these rates (a rate limit lets each client's first N through):

- sql_injection, xss, malware: 100%;
- phishing: about 93% (the swapped-letter look-alike, "tsockai.example", is two edits away and slips by);
- brute_force: 90% (the limit lets the attacker's first 5 guesses through; the right password is guess 48);
- ddos: 80% (3 attackers x 50 pages; 10 pages per client per minute get through).
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence
from typing import Any

from secdash.services.battle import attacks, defense
from secdash.services.battle.corpora import corpus, payload
from secdash.services.battle.defense import DefenseConfig, PatternRule, RateLimit, UploadRules, UrlRules
from secdash.services.battle.demo_app import BRAND_DOMAINS
from secdash.services.battle.sender import RunResult

MAX_SAMPLES = 10
MAX_EXTENSIONS = 40  # UploadRules.blocked_extensions
MAX_PROTECTED_DOMAINS = 20  # UrlRules.protected_domains
MAX_SAMPLE_CHARS = 120

# --- findings -----------------------------------------------------------------------------------------------


def _clip(text: str, limit: int = MAX_SAMPLE_CHARS) -> str:
    text = text.replace("\r", "\\r").replace("\n", "\\n")
    return text if len(text) <= limit else text[: limit - 1] + "\u2026"


def findings_summary(attack_type: str, result: RunResult) -> dict[str, Any]:
    """What a run showed, small and JSON-able: counts, the damage done, up to 10 attack payloads that got
    through (distinct, damaging ones first) and the endpoint attacked."""
    kind = attacks.BY_ID.get(attack_type)
    passed = [o for o in result.outcomes if o.request.traffic == "attack" and not o.blocked]
    ordered = sorted(passed, key=lambda o: o.damage is None)  # stable: damaging ones first, corpus order kept
    samples: list[str] = []
    for outcome in ordered:
        sample = _clip(payload(outcome.request))
        if sample not in samples:
            samples.append(sample)
        if len(samples) == MAX_SAMPLES:
            break
    statuses = Counter(str(o.status) for o in result.outcomes if o.request.traffic == "attack")
    rules = Counter(o.rule for o in result.outcomes if o.rule)
    endpoint = result.outcomes[0].request.path if result.outcomes else ""
    return {
        "attackType": attack_type,
        "label": kind.label if kind else attack_type,
        "technique": kind.technique.id if kind else None,
        "endpoint": endpoint,
        "attackSent": result.attack_sent,
        "attackBlocked": result.attack_blocked,
        "attackPassed": result.attack_sent - result.attack_blocked,
        "benignSent": result.benign_sent,
        "benignBlocked": result.benign_blocked,
        "damages": dict(sorted(result.damages.items())),
        "attackStatuses": dict(sorted(statuses.items())),
        "blockedBy": dict(sorted(rules.items())[:10]),
        "samples": samples,
    }


# --- the recipes (each attack type module holds its own: services/battle/attacks/) ---------------------------


def offline_plan(attack_type: str, slug: str, findings: dict[str, Any]) -> dict[str, Any]:
    """The offline engine's defense: a narrow, correct configuration for this attack type only, and a
    strategy text that starts from what the baseline showed."""
    corpus(attack_type, slug)  # ValueError for an unknown type or site
    config, how = attacks.get(attack_type).recipe(slug)
    sent, passed = int(findings.get("attackSent", 0) or 0), int(findings.get("attackPassed", 0) or 0)
    damages = findings.get("damages") or {}
    seen = ", ".join(f"{name} x{count}" for name, count in sorted(damages.items())[:4]) if isinstance(damages, dict) else ""
    observed = f"Baseline: {passed} of {sent} {attacks.label(attack_type)} requests got through" + (
        f" ({seen})." if seen else "."
    )
    strategy = f"{observed} {how}"[:800]
    return {"strategy": strategy, "config": defense.parse_config(config).model_dump(mode="json")}


# --- merging ------------------------------------------------------------------------------------------------


def _by_name(current: list[Any], addition: list[Any], limit: int | None = None) -> list[Any]:
    """Current rules, each replaced by the addition's rule of the same name, then the addition's new rules.

    At most `limit` rules: the oldest current rules the addition does not replace go first, so a site drilled
    many times (a model naming its rules anew each time) keeps its newest defense instead of refusing every
    further one for breaking the limit."""
    new = {rule.name: rule for rule in addition}
    merged = [new.pop(rule.name, rule) for rule in current]
    merged += [rule for rule in addition if rule.name in new]
    if limit is not None:
        fresh = {rule.name for rule in addition}
        while len(merged) > limit:
            oldest = next(i for i, rule in enumerate(merged) if rule.name not in fresh)
            del merged[oldest]
    return merged


def _newest(values: list[str], limit: int) -> list[str]:
    return values[-limit:] if len(values) > limit else values


def _union(*lists: list[str]) -> list[str]:
    return list(dict.fromkeys(item for values in lists for item in values))


def _protected(urls: UrlRules) -> list[str]:
    """The domains a look-alike check really protects (an empty list means the four platforms')."""
    if not urls.block_lookalikes:
        return []
    return urls.protected_domains or list(BRAND_DOMAINS.values())


def merge(current: DefenseConfig, addition: DefenseConfig) -> DefenseConfig:
    """The deployed defense with `addition` added: rules replaced by name, lists unioned, switches or-ed,
    the smaller size cap; within the limits (the oldest rules the addition does not replace give way);
    validated again."""
    lookalikes = current.urls.block_lookalikes or addition.urls.block_lookalikes
    protected = _union(_protected(current.urls), _protected(addition.urls)) if lookalikes else []
    if set(protected) == set(BRAND_DOMAINS.values()) and not (current.urls.protected_domains or addition.urls.protected_domains):
        protected = []
    caps = [cap for cap in (current.uploads.max_bytes, addition.uploads.max_bytes) if cap is not None]
    merged: dict[str, Any] = {
        "patterns": [r.model_dump() for r in _by_name(current.patterns, addition.patterns, defense.MAX_PATTERNS)],
        "rate_limits": [r.model_dump() for r in _by_name(current.rate_limits, addition.rate_limits, defense.MAX_RATE_LIMITS)],
        "uploads": {
            "signatures": [
                s.model_dump() for s in _by_name(current.uploads.signatures, addition.uploads.signatures, defense.MAX_SIGNATURES)
            ],
            "blocked_extensions": _newest(
                _union(current.uploads.blocked_extensions, addition.uploads.blocked_extensions), MAX_EXTENSIONS
            ),
            "max_bytes": min(caps) if caps else None,
        },
        "urls": {
            "block_punycode": current.urls.block_punycode or addition.urls.block_punycode,
            "block_lookalikes": lookalikes,
            "protected_domains": _newest(protected, MAX_PROTECTED_DOMAINS),
            "blocked_domains": _newest(_union(current.urls.blocked_domains, addition.urls.blocked_domains), defense.MAX_DOMAINS),
        },
    }
    fresh = {rule.name for rule in addition.patterns}
    while len(json.dumps(merged)) > defense.MAX_CONFIG_BYTES:  # long patterns: the oldest go first here too
        oldest = next((i for i, rule in enumerate(merged["patterns"]) if rule["name"] not in fresh), None)
        if oldest is None:
            break  # the addition alone is too large: parse_config says so
        del merged["patterns"][oldest]
    return defense.parse_config(merged)


# --- the "defense code" view --------------------------------------------------------------------------------


def _where(endpoints: Sequence[str] | None) -> str:
    return ",".join(endpoints) if endpoints else "*"


def _pattern_line(rule: PatternRule) -> str:
    flags = "i" if rule.ignore_case else ""
    return f"deny {_where(rule.endpoints)}.{'|'.join(rule.targets)} ~ /{rule.pattern}/{flags}  # {rule.name}"


def _limit_line(limit: RateLimit) -> str:
    return f"limit {_where(limit.endpoints)}: {limit.requests} requests / {limit.window_seconds} s per client  # {limit.name}"


def _upload_lines(uploads: UploadRules) -> list[str]:
    lines = [f"deny upload containing {s.text[:24]!r}... ({len(s.text)} bytes)  # {s.name}" for s in uploads.signatures]
    if uploads.blocked_extensions:
        lines.append(f"deny upload named *{' *'.join(uploads.blocked_extensions)}")
    if uploads.max_bytes is not None:
        lines.append(f"deny upload larger than {uploads.max_bytes} bytes")
    return lines


def _url_lines(urls: UrlRules) -> list[str]:
    lines = []
    if urls.block_punycode:
        lines.append("deny report-link host punycode (xn--) or non-ASCII")
    if urls.block_lookalikes:
        protected = ", ".join(urls.protected_domains) or "the four platforms' domains"
        lines.append(f"deny report-link host imitating {protected}")
    if urls.blocked_domains:
        lines.append(
            f"deny report-link host in {', '.join(urls.blocked_domains[:10])}"
            + (f" (+{len(urls.blocked_domains) - 10} more)" if len(urls.blocked_domains) > 10 else "")
        )
    return lines


def _relevant(line_part: str, rule: PatternRule | RateLimit | None, attack_type: str | None) -> bool:
    kind = attacks.BY_ID.get(attack_type or "")
    if kind is None or kind.defense_part != line_part:
        return False
    endpoints = getattr(rule, "endpoints", None)
    return endpoints is None or kind.endpoint in endpoints


def defense_code(config: DefenseConfig, attack_type: str | None = None) -> str:
    """The configuration as readable rules, one a line (deterministic). Line 1 says what the defense does;
    the rules for `attack_type` come right after it, so the first 3 lines say the most."""
    entries: list[tuple[bool, str]] = []
    entries += [(_relevant("patterns", r, attack_type), _pattern_line(r)) for r in config.patterns]
    entries += [(_relevant("rate_limits", r, attack_type), _limit_line(r)) for r in config.rate_limits]
    entries += [(_relevant("uploads", None, attack_type), line) for line in _upload_lines(config.uploads)]
    entries += [(_relevant("urls", None, attack_type), line) for line in _url_lines(config.urls)]
    ordered = [line for first, line in entries if first] + [line for first, line in entries if not first]
    kind = attacks.BY_ID.get(attack_type or "")
    label = kind.label if kind else ""
    if not ordered:
        return f"# {label + ' defense: ' if label else ''}no rules - every request is let through (weak default)"
    counts = [
        f"{len(config.patterns)} pattern(s)" if config.patterns else "",
        f"{len(config.rate_limits)} rate limit(s)" if config.rate_limits else "",
        "upload checks" if _upload_lines(config.uploads) else "",
        "link checks" if _url_lines(config.urls) else "",
    ]
    head = f"# {label + ' defense: ' if label else 'Defense: '}{', '.join(c for c in counts if c)}; first match refuses (403/429)"
    return "\n".join([head, *ordered])
