"""The offline engine's defenses: a baseline's findings, a narrow recipe per attack type, merging a new
defense into the deployed one, and the human-readable "defense code" view of a configuration (pure).

The recipes are tuned against the drill corpora (secdash/services/battle/corpora.py): every benign request
passes, and the attack requests are blocked at these rates (a rate limit lets each client's first N through):

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

from secdash.services.battle import defense
from secdash.services.battle.corpora import LABELS, MITRE, corpus, payload
from secdash.services.battle.defense import DefenseConfig, PatternRule, RateLimit, UploadRules, UploadSignature, UrlRules
from secdash.services.battle.demo_app import BRAND_DOMAINS, EICAR
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
        "label": LABELS.get(attack_type, attack_type),
        "technique": MITRE[attack_type].id if attack_type in MITRE else None,
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


# --- the recipes --------------------------------------------------------------------------------------------

SQLI_PATTERNS = (
    # A quote that closes the string, followed by SQL (a keyword, a comment, a parenthesis or a statement end).
    ("sqli-quote-break", r"'\s*(\)|;|--|/\*|#|\b(or|and|union|order|group|having|limit)\b)"),
    # UNION ... SELECT with any spacing or comments between the words.
    ("sqli-union-select", r"\bunion\b[\s\S]{0,40}\bselect\b"),
    # Names that only an attacker asks for.
    ("sqli-system-tables", r"\b(sqlite_master|sqlite_schema|password_hash|information_schema)\b"),
    ("sqli-comment", r"/\*|\*/"),
)
XSS_PATTERNS = (
    # Tags that run or load code (harmless formatting like <b>, <i>, <em> stays allowed).
    ("xss-code-tags", r"<\s*/?\s*(script|iframe|frame|object|embed|svg|math|style|base|meta|link|form|applet)\b"),
    # An event handler attribute inside a tag: <img src=x onerror=...>, <svg/onload=...>.
    ("xss-event-handler", r"<[a-z][^>]*[\s/\"']on[a-z]+\s*="),
    # A script URL or a numeric entity (hiding one) inside a tag.
    ("xss-script-url", r"<[a-z][^>]*(script\s*:|&#|data\s*:)"),
)
DANGEROUS_EXTENSIONS = (
    ".exe",
    ".com",
    ".scr",
    ".bat",
    ".cmd",
    ".msi",
    ".dll",
    ".vbs",
    ".js",
    ".jse",
    ".ps1",
    ".hta",
    ".jar",
    ".pif",
    ".cpl",
    ".lnk",
    ".wsf",
)
LOGIN_LIMIT = (5, 60)  # requests per client, window seconds
PAGE_LIMIT = (10, 60)


def _recipe(attack_type: str, slug: str) -> tuple[DefenseConfig, str]:
    if attack_type == "sql_injection":
        config = DefenseConfig(
            patterns=[PatternRule(name=name, pattern=p, targets=["query"], endpoints=["search"]) for name, p in SQLI_PATTERNS]
        )
        return config, (
            "Refuse search queries that break out of the SQL string: a quote followed by SQL, UNION SELECT, "
            "system-table names and SQL comments. Honest searches (words, apostrophes in names, percent signs) pass."
        )
    if attack_type == "xss":
        config = DefenseConfig(
            patterns=[PatternRule(name=name, pattern=p, targets=["query"], endpoints=["comment"]) for name, p in XSS_PATTERNS]
        )
        return config, (
            "Refuse comments carrying script: code-running tags (script, iframe, svg, object...), event-handler "
            "attributes, and script: or entity-hidden URLs inside tags. Formatting tags such as <b> and <i> stay allowed."
        )
    if attack_type == "brute_force":
        requests, window = LOGIN_LIMIT
        config = DefenseConfig(
            rate_limits=[RateLimit(name="login-guessing", requests=requests, window_seconds=window, endpoints=["login"])]
        )
        return config, (
            f"Rate-limit sign-in attempts to {requests} per client per {window} s: a password-guessing client is "
            "stopped after a few tries, while members who mistype once still get in."
        )
    if attack_type == "malware":
        config = DefenseConfig(
            uploads=UploadRules(
                signatures=[UploadSignature(name="eicar-test-file", text=EICAR)], blocked_extensions=list(DANGEROUS_EXTENSIONS)
            )
        )
        return config, (
            "Scan uploads for the EICAR anti-virus test signature (also inside stored zips) and refuse executable "
            "and script file extensions; documents, images and text files are still accepted."
        )
    if attack_type == "phishing":
        config = DefenseConfig(urls=UrlRules(block_punycode=True, block_lookalikes=True, protected_domains=[BRAND_DOMAINS[slug]]))
        return config, (
            f"Refuse reported links whose host is punycode or mixed-script, or imitates {BRAND_DOMAINS[slug]} "
            "(same letters after confusable swaps, one edit away, or the brand inside a longer host). The real "
            "domain and unrelated sites are still published."
        )
    if attack_type == "ddos":
        requests, window = PAGE_LIMIT
        config = DefenseConfig(
            rate_limits=[RateLimit(name="page-flood", requests=requests, window_seconds=window, endpoints=["pages"])]
        )
        return config, (
            f"Rate-limit page requests to {requests} per client per {window} s: a flooding client is cut off "
            "after its first pages, visitors browsing a few pages are never slowed."
        )
    raise ValueError(f"unknown attack type {attack_type[:40]!r}")


def offline_plan(attack_type: str, slug: str, findings: dict[str, Any]) -> dict[str, Any]:
    """The offline engine's defense: a narrow, correct configuration for this attack type only, and a
    strategy text that starts from what the baseline showed."""
    corpus(attack_type, slug)  # ValueError for an unknown type or site
    config, how = _recipe(attack_type, slug)
    sent, passed = int(findings.get("attackSent", 0) or 0), int(findings.get("attackPassed", 0) or 0)
    damages = findings.get("damages") or {}
    seen = ", ".join(f"{name} x{count}" for name, count in sorted(damages.items())[:4]) if isinstance(damages, dict) else ""
    observed = f"Baseline: {passed} of {sent} {LABELS[attack_type]} requests got through" + (f" ({seen})." if seen else ".")
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

_TYPE_PARTS = {
    "sql_injection": "patterns",
    "xss": "patterns",
    "brute_force": "rate_limits",
    "ddos": "rate_limits",
    "malware": "uploads",
    "phishing": "urls",
}
_TYPE_ENDPOINT = {"sql_injection": "search", "xss": "comment", "brute_force": "login", "ddos": "pages"}


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
    if attack_type is None or _TYPE_PARTS.get(attack_type) != line_part:
        return False
    endpoint = _TYPE_ENDPOINT.get(attack_type)
    endpoints = getattr(rule, "endpoints", None)
    return endpoint is None or endpoints is None or endpoint in endpoints


def defense_code(config: DefenseConfig, attack_type: str | None = None) -> str:
    """The configuration as readable rules, one a line (deterministic). Line 1 says what the defense does;
    the rules for `attack_type` come right after it, so the first 3 lines say the most."""
    entries: list[tuple[bool, str]] = []
    entries += [(_relevant("patterns", r, attack_type), _pattern_line(r)) for r in config.patterns]
    entries += [(_relevant("rate_limits", r, attack_type), _limit_line(r)) for r in config.rate_limits]
    entries += [(_relevant("uploads", None, attack_type), line) for line in _upload_lines(config.uploads)]
    entries += [(_relevant("urls", None, attack_type), line) for line in _url_lines(config.urls)]
    ordered = [line for first, line in entries if first] + [line for first, line in entries if not first]
    label = LABELS.get(attack_type or "", "")
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
