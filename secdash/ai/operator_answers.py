"""The offline engine's answers to operator questions about this deployment (secdash/ai/intents.py tells
them apart): the open problems ranked with the first three's fix, a site's defense against one attack,
the pattern in a site's failures, sites side by side, and what changed in the last 24 hours.

Every statement read from live data starts with "[live]" (as in secdash/ai/offline.py); where the data
is missing the answer says so rather than guess ("no DDoS drill has run against Stock yet").
"""

from __future__ import annotations

import re
from datetime import timedelta

from secdash.ai import intents, operations, site_defense
from secdash.ai.agents import AGENTS, PLATFORM_AGENT_IDS, AgentProfile
from secdash.ai.knowledge import BY_ID
from secdash.ai.operations import ATTACK_LABELS
from secdash.ai.situation import SiteFact, Situation, event_label, finding_text, plural, when

LIVE = "[live]"
FIRST = 3
_READY = re.compile(r"\bready\b", re.IGNORECASE)
NO_DATA = (
    "No live data was available for this answer, so I cannot read this deployment's state. "
    "Open the Dashboard, or ask again in a moment."
)


def _named_sites(question: str, agent: AgentProfile, situation: Situation) -> tuple[list[SiteFact], list[str]]:
    """The monitored sites the question names (a platform agent: its own when none is named), and the names
    it gives that no monitored site has."""
    named = intents.sites_in(question, situation)
    sites = [site for name in named if (site := operations.site_of(situation, name)) is not None]
    missing = [name for name in named if operations.site_of(situation, name) is None]
    if not named and agent.id in PLATFORM_AGENT_IDS:
        own = operations.site_of(situation, AGENTS[agent.id].platform)
        sites = [own] if own else []
        missing = [] if own else [AGENTS[agent.id].platform]
    return sites, missing


def _not_monitored(missing: list[str], agent: AgentProfile) -> list[str]:
    platforms = {AGENTS[other].platform for other in PLATFORM_AGENT_IDS}
    return [
        f"- {LIVE} I watch {agent.platform} only, so I have no live data on {name}. Ask Defense Command (it sees every "
        f"site) or the {name} agent."
        if agent.id in PLATFORM_AGENT_IDS and name in platforms and name != agent.platform
        else f"- {LIVE} No monitored site is named {name}: add it on the Dashboard (Sites) to have it watched."
        for name in missing
    ]


def fix_priority(question: str, agent: AgentProfile, situation: Situation) -> list[str]:
    sites, missing = _named_sites(question, agent, situation)
    ranked = operations.rank(situation, [site.name for site in sites])
    scope = " on " + " and ".join(site.name for site in sites) if sites else ""
    if _READY.search(question):  # "which fixes are ready?": only the problems with a fix ready, in rank order
        return _ready_fixes(ranked, scope, missing, agent)
    lines = [f"### What to fix first{scope}"]
    lines += _not_monitored(missing, agent)
    if not ranked:
        lines.append(
            f"- {LIVE} No open problems{scope}: nothing to fix right now. Keep the monitor running and "
            "scan the code after each change."
        )
        return lines
    lines.append(
        f"{plural(len(ranked), 'open problem')}{scope}, ranked by severity, exposure (a public site), age "
        f"and whether a fix is ready. The first {min(FIRST, len(ranked))}, with their fix:"
    )
    for n, item in enumerate(ranked[:FIRST], start=1):
        lines.append(f"{n}. {LIVE} {operations.ranked_line(item)}")
    rest = ranked[FIRST:]
    if rest:
        lines.append("")
        lines.append(
            "Then: "
            + "; ".join(f"{event_label(r.problem)} ({r.problem.severity})" for r in rest[:5])
            + (f" and {len(rest) - 5} more" if len(rest) > 5 else "")
        )
    hidden = max(situation.open_events - len(situation.events), 0) + max(situation.open_findings - len(situation.findings), 0)
    if hidden:
        lines.append(f"- {LIVE} {hidden} more open problems are not in my view (the Dashboard and Fix Mode list all).")
    lines += [
        "",
        "Fixes marked ready can be applied from Fix Mode (review the diff first); resolve an event once its cause is gone.",
    ]
    return lines


def _ready_fixes(ranked: list[operations.Ranked], scope: str, missing: list[str], agent: AgentProfile) -> list[str]:
    ready = [item for item in ranked if item.problem.fix_ready]
    lines = [f"### Fixes ready{scope}", *_not_monitored(missing, agent)]
    if not ready:
        return [
            *lines,
            f"- {LIVE} No open problem{scope} has a fix ready (no Fix Mode recipe, no proposal in review); "
            f'{plural(len(ranked), "open problem")} need a fix written: ask "what should I fix first?".',
        ]
    lines.append(f"{plural(len(ready), 'open problem')}{scope} with a fix ready, highest ranked first:")
    lines += [f"{n}. {LIVE} {operations.ranked_line(item)}" for n, item in enumerate(ready, start=1)]
    return [*lines, "", "Apply them from Fix Mode after reviewing the diff; each is verified by a re-scan or re-probe."]


def site_topic(question: str, agent: AgentProfile, situation: Situation, topic: str) -> list[str]:
    sites, missing = _named_sites(question, agent, situation)
    label = ATTACK_LABELS.get(topic, topic)
    entry = BY_ID[topic]
    lines: list[str] = []
    if not sites:
        lines += [f"### {label} risk", *_not_monitored(missing, agent)]
    for site in sites:
        defense = site_defense.defense_of(situation, site)
        rules = site_defense.rules_for(defense, topic) if defense else []
        drill = site_defense.last_drill(situation, site, topic)
        lines += [
            f"### {label} risk for {site.name}: {site_defense.verdict(site, topic, rules, drill, defense)}",
            f"Live data from SecDash (lines marked {LIVE}):",
        ]
        if defense is None:
            lines.append(
                f"- {LIVE} {site.name} is not one of the bundled demo sites: SecDash deploys defenses and runs "
                f"drills only against those, so nothing measured says how it holds against {label}."
            )
        else:
            deployed = f"revision {defense.revision}, {defense.source}" + (
                f", {when(defense.updated_at)}" if defense.updated_at else ""
            )
            if rules:
                lines.append(f"- {LIVE} Deployed defense of {site.name} ({deployed}) against {label}: " + "; ".join(rules))
            else:
                lines.append(
                    f"- {LIVE} The deployed defense of {site.name} ({deployed}) has no "
                    f"{operations.RULE_KINDS[topic]}: {label} requests reach the application unchecked."
                )
            if drill is not None:
                lines.append(f"- {LIVE} Last {label} drill: {site_defense.drill_line(drill)}")
            else:
                lines.append(
                    f"- {LIVE} No {label} drill has run against {site.name} yet: run one from Battle Station "
                    "to measure the defense."
                )
        if topic == "ddos":
            lines.append(f"- {LIVE} {site_defense.load_line(site, drill)}")
        for finding in site_defense.topic_findings(situation, site, topic):
            lines.append(
                f"- {LIVE} Open {event_label(finding)} ({finding.severity}) at "
                f"{finding.file}:{finding.line}: {finding_text(finding)}"
            )
        lines.append(f"- {LIVE} Site now: status {site.label}" + (f", headers grade {site.grade}" if site.grade else ""))
        lines.append("")
    lines += [
        f"**What reduces the {label} risk** (from the knowledge base):",
        *[f"{n}. {step}" for n, step in enumerate(entry.mitigations[:4], start=1)],
    ]
    return lines


def flapping(question: str, agent: AgentProfile, situation: Situation) -> list[str]:
    sites, missing = _named_sites(question, agent, situation)
    lines: list[str] = []
    if not sites and not missing:  # none named: the sites whose checks fail on and off
        patterns = [(operations.pattern(site), site) for site in situation.sites]
        sites = [site for p, site in patterns if p.kind == "flapping"] or [
            site for p, site in patterns if p.kind in ("single", "steady_down")
        ]
        if not sites:
            return [
                "### No site is flapping",
                f"- {LIVE} Every monitored site passed its recent checks."
                if situation.sites
                else f"- {LIVE} No site is monitored.",
            ]
    lines += _not_monitored(missing, agent)
    for site in sites:
        found = operations.pattern(site)
        title = {
            "flapping": "flapping",
            "steady_down": "down, not flapping",
            "single": "one failure, not flapping",
            "steady_ok": "not failing",
            "no_checks": "no checks yet",
        }[found.kind]
        lines += [f"### {site.name}: {title}", f"- {LIVE} {found.summary()}."]
        if found.cadence_minutes:
            lines.append(
                f"- {LIVE} The monitor checks {site.name} about every {operations.span(found.cadence_minutes)}"
                f"; status now {site.label}" + (f" (last error: {site.last_error})" if site.last_error else "")
            )
        for drill in operations.drills_during(situation, site, found):
            lines.append(
                f"- {LIVE} {site_defense.drill_line(drill)}: it was running when a failure began, so the "
                "drill's load may be the cause."
            )
        lines += _flapping_advice(found)
        lines.append("")
    return lines


def _flapping_advice(found: operations.Pattern) -> list[str]:
    if found.kind != "flapping":
        return []
    if found.regular:
        cause = (
            f"Failures at a fixed interval (about every {operations.span(found.interval_minutes or 0)}) point "
            "at something scheduled: a cron job, a backup, a restart loop or a health check recycling the "
            "process, or a load balancer rotating onto a bad node. Look at what runs on that interval on its host."
        )
    else:
        cause = (
            "Irregular failures point at load or resources: memory or connection exhaustion, a slow dependency, "
            "or bursts of traffic. Compare the failure times with the host's load and the application's logs."
        )
    steps = [cause]
    if found.error:
        steps.append(f"Start from the error the checks report: {found.error!r}.")
    steps.append(
        "A flapping site is one problem: the monitor keeps reopening the same event; resolve it once the checks stay SECURE."
    )
    return ["", "**What it means and what to do:**", *[f"{n}. {s}" for n, s in enumerate(steps, start=1)]]


def compare_sites(question: str, agent: AgentProfile, situation: Situation) -> list[str]:
    sites, missing = _named_sites(question, agent, situation)
    if len(sites) < 2:
        sites = list(situation.sites)
    lines = [f"### {' vs '.join(site.name for site in sites)}" if len(sites) <= 4 else f"### {len(sites)} sites compared"]
    lines += _not_monitored(missing, agent)
    if len(sites) < 2:
        lines.append(
            f"- {LIVE} I see {plural(len(sites), 'monitored site')} only, so there is nothing to compare"
            + (" (ask Defense Command, which sees every site)" if agent.id in PLATFORM_AGENT_IDS else ".")
        )
        return lines
    ranked = sorted(sites, key=lambda s: (site_defense.risk_score(situation, s), s.name))
    lines.append(
        f"Live data (lines marked {LIVE}), safest first; the risk score adds the status, the open problems "
        "by severity, the headers grade and failed checks (higher is worse):"
    )
    lines += [f"- {LIVE} {site_defense.compare_line(situation, site)}" for site in ranked]
    best, worst = ranked[0], ranked[-1]
    if site_defense.risk_score(situation, best) == site_defense.risk_score(situation, worst):
        lines.append(f"- {LIVE} They are level on the risk score.")
    else:
        lines.append(f"- {LIVE} In better shape: {best.name}; most at risk: {worst.name}.")
    timed = [s for s in sites if s.response_ms is not None]
    if len(timed) >= 2:
        fast = min(timed, key=lambda s: s.response_ms or 0)
        lines.append(
            f"- {LIVE} Fastest now: {fast.name} ({fast.response_ms} ms; "
            + ", ".join(f"{s.name} {s.response_ms} ms" for s in timed if s is not fast)
            + ")"
        )
    ranked_problems = operations.rank(situation, [worst.name])
    if ranked_problems:
        lines += ["", f"First fix on {worst.name}: {operations.ranked_line(ranked_problems[0])}"]
    return lines


def changes_since(question: str, agent: AgentProfile, situation: Situation) -> list[str]:
    sites, missing = _named_sites(question, agent, situation)
    names = {site.name for site in sites}
    changes = [c for c in situation.changes if not names or c.site in names]
    scope = f" on {' and '.join(sorted(names))}" if names else ""
    since = f" (since {when(_day_before(situation.now))})" if situation.now else ""
    lines = [f"### What changed in the last 24 hours{scope}{since}", *_not_monitored(missing, agent)]
    if not changes:
        lines.append(f"- {LIVE} Nothing changed{scope}: no problem opened or closed, no drill, fix or defense deployed.")
    groups = (("opened", "Opened"), ("closed", "Closed"), ("drill", "Drills"), ("fix", "Fixes"), ("defense", "Defenses deployed"))
    for kind, title in groups:
        items = [c for c in changes if c.kind == kind]
        if items:
            lines.append(f"**{title}** ({len(items)}):")
            lines += [f"- {LIVE} {when(c.at)}: {c.text}" for c in items[:8]]
    statuses = [f"{site.name} {site.label}" for site in (sites or situation.sites)]
    if statuses:
        lines += ["", f"- {LIVE} Now: " + ", ".join(statuses)]
    return lines


def _day_before(now: str | None) -> str | None:
    moment = operations.parse_time(now)
    if moment is None:
        return None
    return (moment - timedelta(hours=24)).isoformat().replace("+00:00", "Z")


def answer(question: str, agent: AgentProfile, situation: Situation | None) -> list[str] | None:
    """The answer's lines for an operator question, or None when the question is not one."""
    intent = intents.classify(question, agent, situation)
    if intent is None:
        return None
    if situation is None:  # the knowledge base's priorities for the agent, as for a question it cannot match
        return [
            NO_DATA,
            "",
            f"Meanwhile, {agent.platform} priorities:",
            *[f"- **{BY_ID[topic].title}:** {BY_ID[topic].mitigations[0]}" for topic in agent.focus_topics],
        ]
    if intent.startswith("site_topic:"):
        return site_topic(question, agent, situation, intent.removeprefix("site_topic:"))
    composer = {
        "fix_priority": fix_priority,
        "flapping": flapping,
        "compare_sites": compare_sites,
        "changes_since": changes_since,
    }[intent]
    return composer(question, agent, situation)
