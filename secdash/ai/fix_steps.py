"""The next step for one problem, in words: a missing header, a code finding or a security event, from the
knowledge base (the offline engine's answers and the operator's ranked list both use it)."""

from __future__ import annotations

from secdash.ai.agents import AgentProfile
from secdash.ai.knowledge import CONTAINMENT, FINDING_FIXES, HEADER_FIXES
from secdash.ai.retrieval import retrieve
from secdash.ai.situation import EventFact, SiteFact


def header_fix(finding: str) -> str:
    """The step that adds or corrects a missing or weak security header."""
    return next((fix for prefix, fix in HEADER_FIXES if finding.startswith(prefix)), "send the recommended security headers")


def finding_fix(finding: EventFact, agent: AgentProfile) -> str:
    """The step that fixes a code finding: its rule's fix, else the knowledge base's first mitigation."""
    rule = finding.rule or ""
    for prefix, _entry_id, fix in FINDING_FIXES:
        if rule.startswith(prefix):
            return fix
    found = retrieve(f"{finding.description} {rule}", agent)
    if found:
        return found[0].mitigations[0][0].lower() + found[0].mitigations[0][1:]
    return "review the code there and fix it, then run the Security Scan again"


def event_fix(event: EventFact, site: SiteFact | None, agent: AgentProfile) -> str:
    """The step that contains a security event, from the knowledge base."""
    if event.event_type == "site_status_changed":
        if site is not None and site.status == "secure":
            return "the site is SECURE again: resolve this event on the Dashboard"
        return "follows the site's status: fix the cause above, then resolve it once the site is SECURE"
    found = retrieve(event.description, agent)
    if found:
        step = CONTAINMENT.get(found[0].id) or found[0].mitigations[0]
        return step[0].lower() + step[1:]
    return "investigate it on the Dashboard's Security Alerts and resolve it when handled"
