"""What an agent reads out of its live data for an operator's question about this deployment: the open
problems ranked with their fix, and the pattern in a site's checks (secdash/ai/site_defense.py: a site
against one attack, sites side by side). Plain functions over `Situation` (no database, deterministic);
both paths use them: the offline engine composes its answer from them (secdash/ai/operator_answers.py)
and a model gets them as text inside its live data (secdash/ai/computed.py).

Ranking: score = severity (high 30, medium 20, low 10) + 8 when the site is public (on the internet)
+ 5 when the site is in ALERT + 1 per day open (at most 7) + 4 when a fix is ready (Fix Mode's offline
recipe or a proposal in review: a quick win). Ties: the oldest first.
"""

from __future__ import annotations

import statistics
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from secdash.ai import fix_steps
from secdash.ai.agents import AGENTS
from secdash.ai.situation import (
    CheckFact,
    DrillFact,
    EventFact,
    SiteFact,
    Situation,
    clip,
    event_label,
    finding_text,
    when,
)
from secdash.core.site_status import STATUS_LABELS

SEVERITY_POINTS = {"high": 30, "medium": 20, "low": 10}
PUBLIC_POINTS = 8
ALERT_POINTS = 5
READY_POINTS = 4
MAX_AGE_POINTS = 7
ATTACK_LABELS = {
    "ddos": "DDoS",
    "sql_injection": "SQL injection",
    "xss": "XSS",
    "malware": "malware upload",
    "brute_force": "brute force",
    "phishing": "phishing",
}
RULE_KINDS = {
    "ddos": "rate limit",
    "brute_force": "rate limit on the login",
    "sql_injection": "request pattern",
    "xss": "request pattern",
    "malware": "upload rule",
    "phishing": "link check",
}


def parse_time(iso: str | None) -> datetime | None:
    if not iso:
        return None
    try:
        return datetime.fromisoformat(iso.replace("Z", "+00:00"))
    except ValueError:
        return None


def clock(iso: str | None) -> str:
    """'2026-05-01T12:03:00Z' as '12:03'."""
    return iso[11:16] if iso and len(iso) >= 16 else "?"


def span(minutes: float) -> str:
    if minutes < 1:
        return "under a minute"
    if minutes < 90:
        return f"{minutes:.0f} min" if minutes >= 10 or minutes == int(minutes) else f"{minutes:.1f} min"
    if minutes < 48 * 60:
        return f"{minutes / 60:.1f} h".replace(".0 h", " h")
    return f"{minutes / 1440:.0f} days"


def site_of(situation: Situation, name: str | None) -> SiteFact | None:
    return next((site for site in situation.sites if name and site.name.lower() == name.lower()), None)


# --- ranking ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Ranked:
    problem: EventFact
    score: int
    reasons: tuple[str, ...]
    fix: str


def default_fix(problem: EventFact, site: SiteFact | None) -> str:
    """What to do when no fix is ready: the knowledge base's step for its header, rule or kind of event."""
    agent = AGENTS["general"]
    if problem.source == "monitor" and problem.event_type == "vulnerability_detected":
        return fix_steps.header_fix(problem.description.split(": ", 1)[-1])
    if problem.source == "scanner" or problem.event_type == "vulnerability_detected":
        return fix_steps.finding_fix(problem, agent)
    return fix_steps.event_fix(problem, site, agent)


def rank(situation: Situation, site_names: Sequence[str] = ()) -> list[Ranked]:
    """The open problems (of the named sites, or all), highest score first."""
    now = parse_time(situation.now)
    wanted = {name.lower() for name in site_names}
    ranked = []
    for problem in (*situation.findings, *situation.events):
        if wanted and (problem.site or "").lower() not in wanted:
            continue
        site = site_of(situation, problem.site)
        score = SEVERITY_POINTS.get(problem.severity, 5)
        reasons = [problem.severity]
        if site is not None and site.public:
            score += PUBLIC_POINTS
            reasons.append("public site")
        if site is not None and site.status == "critical":
            score += ALERT_POINTS
            reasons.append(f"{site.name} in ALERT")
        opened = parse_time(problem.created_at)
        if now and opened:
            minutes = max((now - opened).total_seconds() / 60, 0)
            score += min(int(minutes // 1440), MAX_AGE_POINTS)
            reasons.append(f"open {span(minutes)}")
        if problem.fix_ready:
            score += READY_POINTS
            reasons.append("fix ready")
        fix = problem.fix_ready or default_fix(problem, site)
        ranked.append(Ranked(problem, score, tuple(reasons), fix))
    ranked.sort(key=lambda r: (-r.score, r.problem.created_at, r.problem.id))
    return ranked


def ranked_line(item: Ranked) -> str:
    problem = item.problem
    where = f" at {problem.file}:{problem.line}" if problem.file else ""
    on = f" on {problem.site}" if problem.site else ""
    return f"{event_label(problem)}{on}{where} ({', '.join(item.reasons)}): {clip(finding_text(problem), 110)}. Fix: {item.fix}"


# --- patterns in checks ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Pattern:
    site: str
    kind: str  # no_checks | steady_ok | steady_down | single | flapping
    checks: int
    failed: int
    bad_label: str
    since: str | None
    starts: tuple[str, ...]  # when each failure began, oldest first
    interval_minutes: float | None  # the typical time between failures
    regular: bool
    longest_run: int  # the most checks in a row that failed
    error: str | None  # what the failing checks said most often
    error_count: int
    cadence_minutes: float | None  # the typical time between checks
    recovered: bool  # the newest check passed

    def summary(self) -> str:
        if self.kind == "no_checks":
            return f"{self.site} has no checks recorded yet, so there is no pattern to read"
        seen = f"{self.checks} checks since {when(self.since)}"
        if self.kind == "steady_ok":
            return f"{self.site} passed all of its last {seen}: no failure to explain"
        said = f"; they report {self.error!r} ({self.error_count}x)" if self.error else ""
        if self.kind == "steady_down":
            return f"{self.site} is not flapping: all of its last {seen} were {self.bad_label} (a steady outage){said}"
        if self.kind == "single":
            back = "it recovered" if self.recovered else "it has not recovered yet"
            return (
                f"{self.site} failed once ({self.failed} check(s) {self.bad_label} from {clock(self.starts[0])}) "
                f"in its last {seen}, and {back}: one incident, not a flapping pattern{said}"
            )
        times = ", ".join(clock(start) for start in self.starts[-8:])
        if self.regular:
            rhythm = f"at a regular interval of about {span(self.interval_minutes or 0)}"
        else:
            rhythm = f"at irregular intervals (typically {span(self.interval_minutes or 0)} apart)"
        length = "one check each" if self.longest_run == 1 else f"up to {self.longest_run} checks in a row"
        return (
            f"{self.site} is flapping: {self.failed} of its last {seen} were {self.bad_label}, in "
            f"{len(self.starts)} separate failures {rhythm} (starting at {times}; {length}){said}"
        )


def pattern(site: SiteFact) -> Pattern:
    """The failures in a site's check history: how many, when each began, how regular, what they said."""
    checks: list[CheckFact] = sorted(site.history or site.recent_checks, key=lambda c: c.checked_at)
    bad = "critical" if any(c.status == "critical" for c in checks) else "warning"
    failing = [c.status == bad for c in checks]
    starts = [c.checked_at for i, c in enumerate(checks) if failing[i] and (i == 0 or not failing[i - 1])]
    runs: list[int] = []
    run = 0
    for is_failing in failing:
        run = run + 1 if is_failing else 0
        runs.append(run)
    times = [t for t in (parse_time(c.checked_at) for c in checks) if t]
    cadence = (
        statistics.median([(b - a).total_seconds() / 60 for a, b in zip(times, times[1:], strict=False)])
        if len(times) > 1
        else None
    )
    gaps = [
        (b - a).total_seconds() / 60
        for a, b in zip([parse_time(s) for s in starts], [parse_time(s) for s in starts[1:]], strict=False)
        if a and b
    ]
    interval = statistics.median(gaps) if gaps else None
    tolerance = max(1.5 * (cadence or 1), 0.2 * (interval or 0))
    regular = len(gaps) >= 2 and max(gaps) - min(gaps) <= tolerance
    said = Counter(
        c.error or (f"HTTP {c.status_code}" if c.status_code and c.status_code >= 400 else "")
        for c, f in zip(checks, failing, strict=True)
        if f
    )
    said.pop("", None)
    error, count = said.most_common(1)[0] if said else (None, 0)
    failed = sum(failing)
    if not checks:
        kind = "no_checks"
    elif failed == 0:
        kind = "steady_ok"
    elif failed == len(checks):
        kind = "steady_down"
    elif len(starts) == 1:
        kind = "single"
    else:
        kind = "flapping"
    return Pattern(
        site=site.name,
        kind=kind,
        checks=len(checks),
        failed=failed,
        bad_label=STATUS_LABELS.get(bad, bad),
        since=checks[0].checked_at if checks else None,
        starts=tuple(starts),
        interval_minutes=interval,
        regular=regular,
        longest_run=max(runs, default=0),
        error=clip(error, 120) if error else None,
        error_count=count,
        cadence_minutes=cadence,
        recovered=bool(checks) and not failing[-1],
    )


def drills_during(situation: Situation, site: SiteFact, found: Pattern) -> list[DrillFact]:
    """The site's drills that were running when one of its failures began."""
    hits = []
    for drill in situation.drills:
        began, ended = parse_time(drill.started_at), parse_time(drill.finished_at or situation.now)
        if drill.site != site.name or not began or not ended:
            continue
        if any(began <= (parse_time(start) or began) <= ended for start in found.starts):
            hits.append(drill)
    return hits
