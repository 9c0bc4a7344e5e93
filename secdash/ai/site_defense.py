"""A site against one attack, and sites side by side, read from the live data: the deployed defense's rules
for the attack, the last drill's measured block rate, the site's response time under that drill's load, a
verdict, and a risk score for comparing sites. Plain functions over `Situation` (secdash/ai/operations.py
holds the ranking and the check patterns).
"""

from __future__ import annotations

import statistics
from collections import Counter

from secdash.ai.knowledge import FINDING_FIXES
from secdash.ai.operations import ATTACK_LABELS, RULE_KINDS, SEVERITY_POINTS
from secdash.ai.situation import DefenseFact, DrillFact, EventFact, SiteFact, Situation, plural, when

# --- a site against one attack ----------------------------------------------------------------------------


def defense_of(situation: Situation, site: SiteFact) -> DefenseFact | None:
    return next((d for d in situation.defenses if d.site == site.name), None)


def rules_for(defense: DefenseFact, topic: str) -> list[str]:
    """The deployed rules that act against `topic`, in words."""
    if topic in ("ddos", "brute_force"):
        limits = [r for r in defense.rate_limits if topic == "ddos" or not r.endpoints or "login" in r.endpoints]
        return [
            f"{r.name}: at most {r.requests} requests per {r.window_seconds} s per client on "
            f"{', '.join(r.endpoints) if r.endpoints else 'every endpoint'}"
            for r in limits
        ]
    if topic in ("sql_injection", "xss"):
        return [f"blocks requests matching {name}" for name in defense.patterns]
    return list(defense.uploads if topic == "malware" else defense.urls if topic == "phishing" else ())


def last_drill(situation: Situation, site: SiteFact, topic: str) -> DrillFact | None:
    return next((d for d in situation.drills if d.site == site.name and d.attack_type == topic), None)


def drill_line(drill: DrillFact) -> str:
    label = ATTACK_LABELS.get(drill.attack_type, drill.attack_type)
    head = f"drill #{drill.id} ({label}) on {drill.site}, {when(drill.started_at)}"
    if drill.status == "running":
        return f"{head}: running now"
    if not drill.attack_sent:
        return f"{head}: {drill.status}, nothing measured after the defense"
    served = drill.benign_sent - drill.benign_blocked
    return (
        f"{head}: {drill.status}, blocked {drill.attack_blocked} of {drill.attack_sent} attack requests "
        f"({drill.block_rate or 0:.0%}), served {served} of {drill.benign_sent} ordinary requests"
        + (f", effectiveness {drill.effectiveness}%" if drill.effectiveness is not None else "")
    )


def load_line(site: SiteFact, drill: DrillFact | None) -> str:
    """The site's response time now and under the last drill's load, as the monitor measured it."""
    times = [c.response_ms for c in site.history or site.recent_checks if c.response_ms is not None]
    now = f"{site.response_ms} ms now" if site.response_ms is not None else "no response time measured yet"
    usual = (
        f" (median {statistics.median(times):.0f} ms, slowest {max(times)} ms over the last {len(times)} checks)" if times else ""
    )
    if drill is None:
        return f"Response time of {site.name}: {now}{usual}; no drill has loaded it, so its time under load is unknown"
    if not drill.checks_during:
        return (
            f"Response time of {site.name}: {now}{usual}; the monitor made no check while drill #{drill.id} ran, "
            "so its time under load is not measured"
        )
    failed = f", {drill.failed_checks_during} of them failed" if drill.failed_checks_during else ""
    return (
        f"Response time of {site.name}: {now}{usual}; under drill #{drill.id} the monitor's "
        f"{plural(drill.checks_during, 'check')} peaked at {drill.max_response_ms} ms{failed}"
    )


def topic_findings(situation: Situation, site: SiteFact, topic: str) -> list[EventFact]:
    entry_of = {prefix: entry for prefix, entry, _fix in FINDING_FIXES}
    return [
        f
        for f in situation.findings_of(site)
        if any((f.rule or "").startswith(prefix) and entry == topic for prefix, entry in entry_of.items())
    ]


def verdict(site: SiteFact, topic: str, rules: list[str], drill: DrillFact | None, defense: DefenseFact | None) -> str:
    label = ATTACK_LABELS.get(topic, topic)
    if defense is None:
        return f"Unknown: {site.name} is not a bundled demo site, so SecDash has no deployed defense or drill for it"
    if not rules:
        weak = " (its defense is still the weak default, which refuses nothing)" if defense.revision == 0 else ""
        return f"At risk: {site.name} enforces no {RULE_KINDS[topic]} against {label}{weak}"
    if drill is None or not drill.attack_sent:
        return f"Untested: {site.name} has {plural(len(rules), 'rule')} against {label}, but no {label} drill measured them"
    if (drill.block_rate or 0) >= 0.9 and (drill.effectiveness or 0) >= 50:
        return f"Defended as far as the last drill measured: it blocked {drill.block_rate:.0%} of the {label} attack"
    return f"Partly defended: the last {label} drill saw {drill.block_rate or 0:.0%} of the attack blocked"


# --- sites side by side ------------------------------------------------------------------------------------

GRADE_POINTS = {
    "A+": 0,
    "A": 0,
    "A-": 2,
    "B+": 4,
    "B": 5,
    "B-": 6,
    "C+": 8,
    "C": 10,
    "C-": 12,
    "D+": 14,
    "D": 15,
    "D-": 16,
    "E": 20,
    "F": 25,
}


def risk_score(situation: Situation, site: SiteFact) -> int:
    """Higher is worse: the status, the open problems by severity, the headers grade, failed checks."""
    status = {"critical": 100, "warning": 10}.get(site.status, 0)
    problems = sum(SEVERITY_POINTS.get(p.severity, 5) for p in (*situation.events_of(site), *situation.findings_of(site)))
    failed = sum(1 for c in site.history or site.recent_checks if c.status == "critical")
    return status + problems + GRADE_POINTS.get(site.grade or "", 10) + 2 * failed


def compare_line(situation: Situation, site: SiteFact) -> str:
    problems = (*situation.events_of(site), *situation.findings_of(site))
    by_severity = Counter(p.severity for p in problems)
    open_text = ", ".join(f"{by_severity[s]} {s}" for s in ("high", "medium", "low") if by_severity[s]) or "none"
    checks = site.history or site.recent_checks
    failed = sum(1 for c in checks if c.status == "critical")
    parts = [
        f"status {site.label}",
        f"headers grade {site.grade or '?'}",
        f"{site.response_ms} ms" if site.response_ms is not None else "no response time",
        f"open problems: {open_text}",
        f"{failed} of {len(checks)} recent checks failed",
    ]
    drills = [d for d in situation.drills if d.site == site.name and d.effectiveness is not None]
    if drills:
        parts.append(
            f"last drill #{drills[0].id} ({ATTACK_LABELS.get(drills[0].attack_type, '')}) "
            f"effectiveness {drills[0].effectiveness}%"
        )
    else:
        parts.append("no drill measured")
    return f"{site.name}: " + ", ".join(parts) + f" (risk score {risk_score(situation, site)})"
