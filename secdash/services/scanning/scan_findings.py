"""A scan's findings as security events: one event per finding identity (code root, file, rule, normalised code),
kept open while scans still find it, closed as fixed when a complete scan no longer does (scans.py runs the scan;
a code fix's re-scan, services/fix/jobs.py, records and closes the same way)."""

from __future__ import annotations

import hashlib
from pathlib import Path

from sqlmodel.ext.asyncio.session import AsyncSession

from secdash.models import EventSeverity, EventType, SecurityEvent, utcnow
from secdash.services.alerting import signals
from secdash.services.code_scan import Finding, covers
from secdash.services.problems import events, triage
from secdash.services.scanning import code_roots

LEGACY_TOOL = "secdash-rules"  # the line rules semgrep's rules replaced (issue 22)


def fingerprint(finding: Finding, root: str = "") -> str:
    """A finding's identity: code root, relative path, rule and the normalised code it flags (no line number)."""
    return hashlib.sha256("\0".join((root, finding.file, finding.rule, finding.code)).encode()).hexdigest()[:40]


def _line_fingerprint(finding: Finding) -> str:
    """The fingerprint older versions gave a finding (it held the line), to adopt their open events once."""
    return hashlib.sha256(f"{finding.file}:{finding.line}:{finding.rule}".encode()).hexdigest()[:40]


async def _edited_candidates(
    session: AsyncSession, root: str, prints: dict[str, Finding], known: dict[str, SecurityEvent]
) -> list[SecurityEvent]:
    """The open events of these findings' files that none of them matches by identity: a finding whose line was
    edited (its normalised code changed) but that still breaks the same rule is one of these."""
    fresh = {f.file for p, f in prints.items() if p not in known}
    if not fresh or not root:
        return []
    return [
        event
        for event in await events.open_of_type(session=session, event_type=EventType.vulnerability_detected, any_site=True)
        if event.source == "scanner"
        and (event.details or {}).get("root") == root
        and (event.details or {}).get("file") in fresh
        and event.fingerprint not in prints
    ]


async def _changed_decided(
    session: AsyncSession, root: str, prints: dict[str, Finding], decided: dict[str, SecurityEvent]
) -> list[SecurityEvent]:
    """The false positives and accepted risks of these findings' files whose flagged code is gone: a new finding
    of the same file and rule is that code, changed (it reopens the decision instead of opening a new problem)."""
    if not root:
        return []
    fresh = {f.file for p, f in prints.items() if p not in decided}
    return [event for event in await triage.decided_code_findings(session, root, fresh) if event.fingerprint not in prints]


def _take_edited(candidates: list[SecurityEvent], finding: Finding) -> SecurityEvent | None:
    """The candidate of the finding's file and rule nearest its line (removed from the candidates), or None."""
    same = [
        event
        for event in candidates
        if (event.details or {}).get("file") == finding.file and (event.details or {}).get("rule") == finding.rule
    ]
    if not same:
        return None
    event = min(same, key=lambda e: abs(int((e.details or {}).get("line") or 0) - finding.line))
    candidates.remove(event)
    return event


async def record_findings(session: AsyncSession, job_id: int, findings: list[Finding], *, root: str = "") -> set[str]:
    """Add one security event per new finding; an open event with the same identity is kept and shows the
    current line. Returns the fingerprints seen."""
    prints = {fingerprint(f, root): f for f in findings}
    known = await events.open_by_fingerprint(session=session, fingerprints=list(prints))
    legacy = await events.open_by_fingerprint(
        session=session, fingerprints=[_line_fingerprint(f) for p, f in prints.items() if p not in known]
    )
    site_of = await code_roots.site_resolver(session)
    edited = await _edited_candidates(session, root, prints, known)
    decided = await triage.decided(session, [p for p in prints if p not in known])
    changed = await _changed_decided(session, root, prints, decided)
    now = utcnow()
    for print_, finding in prints.items():
        description = f"{finding.message} ({finding.file}:{finding.line})"
        event = known.get(print_)
        if event is None and print_ in decided:
            if not triage.expired(decided[print_], now):
                continue  # a false positive or an accepted risk, its code unchanged: stays closed
            event = decided[print_]
            triage.reopen(session, event, triage.expiry_reason(event), now)
        old = legacy.get(_line_fingerprint(finding))
        if event is None and old is not None and "root" not in (old.details or {}):
            event = old  # an event from before identities held the code: adopted once, by path, rule and line
            event.fingerprint = print_
            event.details = (event.details or {}) | {"root": root}
        if event is None and (event := _take_edited(edited, finding)) is not None:
            event.fingerprint = print_  # its line was edited but still breaks the rule: the same finding
        if event is None and (event := _take_edited(changed, finding)) is not None:
            triage.reopen(session, event, triage.code_changed_reason(event), now)  # decided on other code
            event.fingerprint = print_
        if event is not None:
            if event.site_id is None and root:  # recorded before its root was linked to a site
                event.site_id = site_of(Path(root) / finding.file)
            current = {"line": finding.line, "tool": finding.tool, "cwe": finding.cwe, "confidence": finding.confidence}
            if any((event.details or {}).get(k) != v for k, v in current.items()) or event.description != description:
                event.details = (event.details or {}) | current
                event.description = description[:2000]
            session.add(event)
            continue
        await signals.new_finding(
            session,
            severity=finding.severity,
            rule_name=finding.rule,
            where=f"{finding.file}:{finding.line}",
            message=finding.message,
        )
        events.record(
            session,
            event_type=EventType.vulnerability_detected,
            severity=EventSeverity(finding.severity),
            description=description,
            site_id=site_of(Path(root) / finding.file) if root else None,
            source="scanner",
            fingerprint=print_,
            ai_action=f"Flagged by {finding.tool}",
            details={
                "file": finding.file,
                "line": finding.line,
                "rule": finding.rule,
                "tool": finding.tool,
                "scanId": job_id,
                "root": root,
                "cwe": finding.cwe,
                "confidence": finding.confidence,
            },
        )
    return set(prints)


async def close_unseen(
    session: AsyncSession,
    job_id: int,
    scan_type: str,
    seen: dict[tuple[str, str], set[str]],
    rules_seen: dict[str, set[str]],
    *,
    label: str | None = None,
    semgrep_unread: frozenset | set = frozenset(),
) -> int:
    """After a complete scan: close the open findings of the scanned files (and of the rules this scan type
    checks) that it no longer saw, each with a vulnerability_fixed event naming the scan; caller commits.

    seen maps (root, file) to the fingerprints found there; rules_seen maps a file to its rules found, to
    tell an older line-based event whose finding moved (superseded) from one whose code is gone (fixed).
    `label` names what looked ("Scan #12 (full)" by default; a fix's re-scan names the fix). `semgrep_unread`
    holds the (root, file) pairs semgrep could not (fully) read: their semgrep findings stay open."""
    now = utcnow()
    label = label or f"Scan #{job_id} ({scan_type})"
    closed = 0
    for event in await events.open_of_type(session=session, event_type=EventType.vulnerability_detected, any_site=True):
        details = event.details or {}
        file, rule = details.get("file"), details.get("rule")
        tool = details.get("tool", "")
        if event.source != "scanner" or not file or not covers(scan_type, tool, rule or ""):
            continue
        if tool in ("semgrep", LEGACY_TOOL) and (details.get("root"), file) in semgrep_unread:
            continue
        if "root" in details:
            prints = seen.get((details["root"], file))
            if prints is None or event.fingerprint in prints:
                continue
        else:  # recorded before identities held the code, and not adopted by this scan
            if not any(key[1] == file for key in seen):
                continue
            if rule in rules_seen.get(file, set()):
                events.close_by_system(
                    session,
                    event,
                    by="scanner",
                    at=now,
                    note=f"Closed by scan #{job_id}: superseded by the same finding recorded with its new identity",
                )
                continue
        if tool == LEGACY_TOOL:  # a line rule's match that semgrep's rules do not confirm: not a fix
            events.close_by_system(
                session,
                event,
                by="scanner",
                at=now,
                note=f"Closed by {label}: the line rules were replaced by semgrep's, which do not "
                "report it (a match in a comment, a string or a constant)",
            )
            continue
        events.close_by_system(
            session,
            event,
            by="scanner",
            at=now,
            note=f"Fixed: {label} no longer finds it",
        )
        record = events.record(
            session,
            event_type=EventType.vulnerability_fixed,
            severity=EventSeverity(event.severity),
            description=f"{label} no longer finds {rule} in {file}: event #{event.id} is fixed",
            site_id=event.site_id,
            source="scanner",
            details={
                "scanId": job_id,
                "eventId": event.id,
                "file": file,
                "rule": rule,
                "root": details.get("root"),
                "line": details.get("line"),
            },
        )
        events.close_by_system(session, record, by="scanner", at=now, note=f"Recorded by {label}")
        closed += 1
    return closed
