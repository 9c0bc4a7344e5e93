"""The built-in offline engine: answers from the bundled knowledge base by retrieval, per agent,
grounded in SecDash's live data when it is given the agent's situation.

Retrieval (which entries a question is about) is secdash/ai/retrieval.py.

Answers: the entry's mitigations, a containment step first when the message describes an attack
going on now (secdash/ai/threat.py), and the agent's live facts. Every statement read from live data
starts with "[live]"; the rest comes from the knowledge base. Deterministic (same question, same
data, same answer), needs no network, and says what it is through the provider name shown in the UI
("offline").
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import AsyncGenerator, Sequence
from typing import TYPE_CHECKING, TypeVar

from pydantic import BaseModel

from secdash.ai import fix_steps, threat
from secdash.ai.agents import AGENTS, PLATFORM_AGENT_IDS, AgentProfile
from secdash.ai.base import Done, Event, Structured, TextDelta
from secdash.ai.files import FileStreamParser
from secdash.ai.knowledge import (
    BY_ID,
    CONTAINMENT,
)
from secdash.ai.retrieval import retrieve
from secdash.ai.situation import (
    EventFact,
    SiteFact,
    Situation,
    clip,
    event_label,
    finding_text,
    headers_missing,
    plural,
    site_line,
    when,
)
from secdash.core.site_status import STATUS_LABELS

if TYPE_CHECKING:
    from secdash.ai.tasks.base import Task

Schema = TypeVar("Schema", bound=BaseModel)

LIVE = "[live]"
MAX_ACTIONS = 8


# --- live facts in answers ------------------------------------------------------------------------


def _status_fix(site: SiteFact) -> str | None:
    """What to do about the site's availability or TLS, if anything."""
    if site.status == "critical":
        if site.last_error:
            return (
                f"{site.name} cannot be checked ({clip(site.last_error, 100)}): make sure the server is up and "
                "reachable from SecDash, then watch the next check"
            )
        if site.status_code and site.status_code >= 500:
            return f"{site.name} answers HTTP {site.status_code}: check the application's logs and its host"
    if site.status_code and 400 <= site.status_code < 500:
        return f"{site.name} answers HTTP {site.status_code}: check that the monitored URL is right"
    if site.tls_days_left is not None and site.tls_days_left < 0:
        return f"the TLS certificate of {site.name} has expired: renew it now"
    if site.tls_days_left is not None and site.tls_days_left < 14:
        return f"renew the TLS certificate of {site.name} ({site.tls_days_left} days left) before it expires"
    if site.response_ms is not None and site.response_ms > 2000:
        return f"{site.name} is slow ({site.response_ms} ms): check its load and whether it is being flooded"
    return None


def _verdict(site: SiteFact, events: Sequence[EventFact], findings: Sequence[EventFact]) -> str:
    problems = []
    if site.grade:
        problems.append(f"headers grade {site.grade}")
    if site.findings:
        problems.append(plural(len(site.findings), "header finding"))
    if findings:
        problems.append(plural(len(findings), "open code finding"))
    if events:
        problems.append(plural(len(events), "open event"))
    detail = ", ".join(problems)
    if not site.probed:
        return f"Unknown: {site.name} has not been probed yet"
    if site.status == "critical":
        return f"No: {site.name} is in ALERT" + (f" ({detail})" if detail else "")
    clean = site.grade in ("A+", "A") and not site.findings and not findings and not events
    if site.status == "secure" and clean:
        return f"Yes, as far as SecDash sees: {site.name} is SECURE with headers grade {site.grade}"
    return f"Not yet: {detail}" if detail else f"Not yet: {site.name} is {site.label}"


def _site_facts(site: SiteFact, situation: Situation) -> list[str]:
    lines = [f"- {LIVE} {site.name} ({site.url}): {site_line(site)}"]
    missing = headers_missing(site)
    if missing:
        lines.append(
            f"- {LIVE} Security headers of {site.name}, grade {site.grade}"
            + (f" ({site.score}/100)" if site.score is not None else "")
            + f": {'; '.join(missing)}"
        )
    if site.recent_checks:
        checks = ", ".join(
            f"{STATUS_LABELS.get(c.status, c.status)}"
            + (f" {c.response_ms} ms" if c.response_ms is not None else "")
            + (f" ({clip(c.error, 60)})" if c.error else "")
            for c in site.recent_checks
        )
        lines.append(f"- {LIVE} Recent checks, newest first: {checks}")
    events, findings = situation.events_of(site), situation.findings_of(site)
    for event in events:
        lines.append(
            f"- {LIVE} Open {event_label(event)} ({event.severity}, {when(event.created_at)}): {clip(event.description)}"
        )
    for finding in findings:
        where = f" at {finding.file}:{finding.line}" if finding.file else ""
        lines.append(
            f"- {LIVE} Open {event_label(finding)} ({finding.severity}){where}"
            + (f" [{finding.rule}]" if finding.rule else "")
            + f": {clip(finding_text(finding))}"
        )
    if not events and not findings:
        lines.append(f"- {LIVE} No open security events or code findings for {site.name}")
    return lines


def _site_actions(site: SiteFact, situation: Situation, agent: AgentProfile) -> list[str]:
    actions = []
    status = _status_fix(site)
    if status:
        actions.append(status)
    for finding in site.findings:
        actions.append(f"{finding.rsplit(' (-', 1)[0]}: {fix_steps.header_fix(finding)}")
    for code_finding in sorted(
        situation.findings_of(site),
        key=lambda f: ("high", "medium", "low").index(f.severity) if f.severity in ("high", "medium", "low") else 3,
    ):
        where = f"{code_finding.file}:{code_finding.line}" if code_finding.file else event_label(code_finding)
        actions.append(f"{where} ({clip(finding_text(code_finding), 80)}): {fix_steps.finding_fix(code_finding, agent)}")
    for event in situation.events_of(site):
        actions.append(f"{event_label(event).capitalize()}: {fix_steps.event_fix(event, site, agent)}")
    return actions


def _no_site_lines(question: str, agent: AgentProfile, situation: Situation | None) -> list[str]:
    if situation is None:
        return [
            "No live data was available for this answer, so I cannot say how the site is doing. "
            "Open the Dashboard for its status and grade, or ask again in a moment.",
            "",
            "**What keeps a site safe** (from the knowledge base):",
            *[f"{n}. {step}" for n, step in enumerate(BY_ID["site_status"].mitigations, start=1)],
        ]
    if agent.id in PLATFORM_AGENT_IDS:
        return [
            f"- {LIVE} No site named {agent.platform} is monitored, so I have no live data on it. "
            "Add it on the Dashboard (Sites) and I will report its status, grade and findings."
        ]
    return [f"- {LIVE} No monitored site matches; add sites on the Dashboard to have them watched."]


def _other_platforms_named(question: str, agent: AgentProfile, situation: Situation) -> list[str]:
    """Platform names in the question whose site is not in this agent's view."""
    lowered = question.lower()
    mine = {site.name.lower() for site in situation.sites}
    return [
        AGENTS[other].platform
        for other in PLATFORM_AGENT_IDS
        if other != agent.id and other not in mine and re.search(rf"(?<![a-z0-9]){other}(?![a-z0-9])", lowered)
    ]


def _site_report(question: str, agent: AgentProfile, situation: Situation | None) -> list[str]:
    """The answer to "is our X site safe?": verdict, live facts, what to do about each."""
    if situation is None or not situation.sites:
        return _no_site_lines(question, agent, situation)
    named = situation.sites_named(question)
    elsewhere = _other_platforms_named(question, agent, situation)
    if elsewhere and not named:
        others = " and ".join(elsewhere)
        return [
            f"I watch {agent.platform} only, so I have no live data on {others}. Ask Defense Command (it sees "
            f"every site) or the {others} agent."
        ]
    targets = named or situation.sites
    lines: list[str] = []
    if len(targets) == 1:
        site = targets[0]
        lines += [
            f"### Is {site.name} safe? {_verdict(site, situation.events_of(site), situation.findings_of(site))}",
            f"Live data from SecDash's monitor and scanner (lines marked {LIVE}):",
            *_site_facts(site, situation),
        ]
        actions = _site_actions(site, situation, agent)
    else:
        lines += [f"### {len(targets)} monitored sites", f"Live data from SecDash's monitor and scanner (lines marked {LIVE}):"]
        ranked = sorted(
            targets,
            key=lambda s: (
                ("critical", "warning", "secure").index(s.status) if s.status in ("critical", "warning", "secure") else 3,
                s.name,
            ),
        )
        for site in ranked:
            extras = [plural(len(situation.findings_of(site)), "open code finding")] if situation.findings_of(site) else []
            extras += [plural(len(situation.events_of(site)), "open event")] if situation.events_of(site) else []
            lines.append(
                f"- {LIVE} **{site.name}**: {site_line(site)}"
                + (f", {plural(len(site.findings), 'header finding')}" if site.findings else "")
                + (f", {', '.join(extras)}" if extras else "")
            )
        unsited = [e for e in situation.events if e.site is None]
        if unsited:
            lines.append(f"- {LIVE} {plural(len(unsited), 'open event')} not tied to a site")
        actions = [f"{site.name}: {action}" for site in ranked for action in _site_actions(site, situation, agent)]
    hidden = max(situation.open_events - len(situation.events), 0) + max(situation.open_findings - len(situation.findings), 0)
    if hidden:
        lines.append(f"- {LIVE} {hidden} more open events and findings are listed on the Dashboard")
    if actions:
        lines += ["", "**What to do** (from the knowledge base):"]
        lines += [f"{n}. {action}" for n, action in enumerate(actions[:MAX_ACTIONS], start=1)]
        if len(actions) > MAX_ACTIONS:
            lines.append(f"(and {len(actions) - MAX_ACTIONS} more on the Dashboard)")
    else:
        lines += ["", "Nothing to fix right now; keep the monitor running and scan the code after each change."]
    return lines


def _live_context(agent: AgentProfile, situation: Situation | None) -> list[str]:
    """A few lines of the agent's live state under an answer about a threat."""
    if situation is None or not situation.sites:
        return []
    lines = ["", f"**Live context** (lines marked {LIVE} are read from SecDash):"]
    for site in situation.sites[:4]:
        lines.append(f"- {LIVE} {site.name}: {site_line(site)}")
    if len(situation.sites) > 4:
        counts = Counter(site.label for site in situation.sites[4:])
        lines.append(
            f"- {LIVE} and {len(situation.sites) - 4} more sites: "
            + ", ".join(f"{n} {label}" for label, n in sorted(counts.items()))
        )
    open_events = max(situation.open_events, len(situation.events))
    open_findings = max(situation.open_findings, len(situation.findings))
    if open_events or open_findings:
        ask = f"is {situation.sites[0].name} safe?" if len(situation.sites) == 1 else "are our sites safe?"
        lines.append(
            f"- {LIVE} Open: {plural(open_events, 'security event')}, {plural(open_findings, 'code finding')} "
            f'(ask "{ask}" for each with what to do)'
        )
    return lines


def compose_answer(question: str, agent: AgentProfile, situation: Situation | None = None) -> str:
    """A Markdown answer built from the knowledge base and, when given, the agent's live facts."""
    from secdash.ai.operator_answers import answer  # questions about this deployment (it imports this module)

    lines = [f"**{agent.name}** · {agent.specialization}", ""]
    operator = answer(question, agent, situation)
    if operator is not None:
        return "\n".join(lines + operator)
    found = retrieve(question, agent, situation=situation)
    if found and found[0].id == "site_status":
        lines += _site_report(question, agent, situation)
        return "\n".join(lines)
    if not found:
        focus = [BY_ID[topic] for topic in agent.focus_topics]
        lines += [
            "I could not match your question to a known threat in my knowledge base. "
            "Describe what you see (symptoms, affected site, logs) and I can be specific.",
            "",
            f"Meanwhile, {agent.platform} priorities:",
            *[f"- **{entry.title}:** {entry.mitigations[0]}" for entry in focus],
        ]
        lines += _live_context(agent, situation)
        return "\n".join(lines)
    main = found[0]
    judged = threat.judge(question, situation)
    if judged.mode == "active" and main.id in CONTAINMENT:
        lines += [
            f"**This reads as an attack going on now (threat level {judged.level}). Contain first:** {CONTAINMENT[main.id]}.",
            "",
        ]
    lines += [f"### {main.title}", main.summary, "", "**Recommended actions:**"]
    lines += [f"{n}. {step}" for n, step in enumerate(main.mitigations, start=1)]
    for extra in found[1:]:
        if extra.id != "site_status":
            lines += ["", f"**Related: {extra.title}.** {extra.mitigations[0]}."]
    lines += _live_context(agent, situation)
    return "\n".join(lines)


class OfflineEngine:
    """The provider used when no model is configured: answers every task from its offline side
    (`Task.offline_text` / `Task.offline_structured`, which use the knowledge base and rules here),
    streamed word by word like a model's reply. Reports no token counts (there are none)."""

    name = "offline"
    model = "secdash-knowledge-base"

    async def stream(self, task: Task) -> AsyncGenerator[Event, None]:
        answer = task.offline_text()
        parser = FileStreamParser(task.default_file) if task.files else None
        for piece in re.findall(r"\S+\s*|\s+", answer):  # word by word, like a model's stream
            if parser is None:
                yield TextDelta(piece)
            else:
                for event in parser.feed(piece):
                    yield event
        for event in parser.close() if parser else ():
            yield event
        yield Done()

    async def structured(self, task: Task, schema: type[Schema]) -> Structured[Schema]:
        value = task.offline_structured(schema)
        return Structured(schema.model_validate(value.model_dump()))
