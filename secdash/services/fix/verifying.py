"""The "fix" job's step "verify": is an applied fix a fix?

A code fix re-scans the changed files (the whole file, every rule, as a full scan does): the problem is closed
with a vulnerability_fixed event when its finding is gone, and findings the fix introduced are flagged. It is
VERIFIED only when the finding is gone, it introduced no finding, and the code still works: the folder still
parses and compiles, and its pages load in headless Chromium with no error the page before the fix did not have
(services/fix/still_works.py); otherwise it is "not verified" with the reason, and revert stays one click. A site
fix probes the site at once; the monitor's reconciliation closes the header finding when it is gone.
"""

from __future__ import annotations

import asyncio
import base64
from pathlib import Path
from typing import Any

from secdash.core import bounded
from secdash.core.db import session_scope
from secdash.core.unit import commit, mark_changed
from secdash.jobs import JobContext
from secdash.models import EventType, LogCategory, LogSeverity, SecurityEvent, Site, utcnow
from secdash.models.fixes import Fix, FixKind, FixStatus
from secdash.models.jobs import JobLevel
from secdash.services import audit
from secdash.services.agents import activities
from secdash.services.battle import request_log
from secdash.services.code_scan import ScanTarget, not_scanned_reason, scan_file_bounded
from secdash.services.fix import site_fixes, still_works
from secdash.services.fix.job_kind import TOPIC, FixFailed
from secdash.services.fix.problems import ProblemFacts
from secdash.services.monitoring import monitor
from secdash.services.probe import ProbeClients, probe_site
from secdash.services.problems import events
from secdash.services.scanning import code_roots, scan_findings


def _count_lines(path: Path) -> int:
    with path.open("rb") as handle:
        return sum(1 for _ in handle)


async def _rescan(root: Path, files: list[str]) -> list[tuple[str, list[Any]]]:
    """Each changed file's findings as a full scan sees it now (in the workspace), each in a bounded worker; a file
    that cannot be re-scanned fails the verification (nothing unread is called fixed)."""
    source = code_roots.source_of(root)
    results = []
    for relative in files:
        path = source / relative
        target = ScanTarget(path=path, display=relative, lines=await asyncio.to_thread(_count_lines, path))
        try:
            results.append((relative, await scan_file_bounded(target, "full")))
        except (bounded.BudgetExceeded, bounded.Busy) as exc:
            raise FixFailed(
                f"{relative} could not be re-scanned ({not_scanned_reason(exc).removeprefix('not scanned: ')})"
                "; the fix is not verified"
            ) from None
    return results


async def _verify_code(ctx: JobContext, fix: Fix, facts: ProblemFacts) -> dict[str, Any]:
    assert facts.root is not None
    root = str(facts.root)
    files = sorted(fix.applied) or [facts.file]
    await ctx.log(f"Re-scanning {', '.join(files)} (every rule, as a full scan)")
    scanned = await _rescan(facts.root, files)
    label = f"Fix #{fix.id}'s re-scan"
    async with session_scope() as session:
        open_before = await events.open_of_type(session=session, event_type=EventType.vulnerability_detected, any_site=True)
        before = {e.fingerprint for e in open_before if e.fingerprint}
        # A finding the file already had (same rule) whose line this fix rewrote gets a new identity; it is not new.
        had = {
            ((e.details or {}).get("file"), (e.details or {}).get("rule"))
            for e in open_before
            if (e.details or {}).get("root") == root and e.id != fix.event_id
        }
        seen: dict[tuple[str, str], set[str]] = {}
        rules_seen: dict[str, set[str]] = {}
        found = []
        for relative, findings in scanned:
            seen[(root, relative)] = (
                await scan_findings.record_findings(session, ctx.job_id, findings, root=root) if findings else set()
            )
            rules_seen.setdefault(relative, set()).update(f.rule for f in findings)
            found += findings
        await scan_findings.close_unseen(session, ctx.job_id, "full", seen, rules_seen, label=label)
        await session.flush()
        event = await session.get(SecurityEvent, fix.event_id)
        gone = event is None or event.resolved
        new = [f for f in found if scan_findings.fingerprint(f, root) not in before]
        await commit(session)
    # The flagged line rewritten but still breaking the same rule (the scan keeps it as the same open finding with
    # a new identity) is not a fix.
    moved = [f for f in new if f.rule == facts.rule and f.file == facts.file]
    fixed = gone and not moved
    still = [
        f"{f.rule} at {f.file}:{f.line}" + (" (the rewritten line still breaks it)" if f in moved else "")
        for f in found
        if f.rule == facts.rule and f.file == facts.file
    ]
    introduced = [f"{f.rule} at {f.file}:{f.line}: {f.message}" for f in new if f not in moved and (f.file, f.rule) not in had]
    await ctx.log("Checking that the code still works: syntax, and its pages in a browser beside the page before the fix")
    previous = {path: base64.b64decode(data) for path, data in (fix.previous or {}).items()}
    broken = await still_works.regressions(code_roots.source_of(facts.root), files, previous)
    return {
        "method": "rescan",
        "files": files,
        "fixed": fixed,
        "stillSeen": [] if fixed else still,
        "newFindings": introduced,
        "broken": broken,
        "verified": fixed and not introduced and not broken,
    }


async def _verify_site(ctx: JobContext, fix: Fix, facts: ProblemFacts) -> dict[str, Any]:
    async with session_scope() as session:
        site = await session.get(Site, facts.event.site_id) if facts.event.site_id is not None else None
        if site is None:
            raise FixFailed("The site of this problem no longer exists")
        url, allow_private, demo = site.url, site.is_demo or site.allow_private, site.is_demo
    await ctx.log(f"Probing {url} now")
    async with ProbeClients() as clients:
        result = await probe_site(
            url,
            client=clients.get(allow_private=allow_private),
            allow_private=allow_private,
            own_headers=request_log.monitor_headers() if demo else None,
        )
    async with session_scope() as session:
        site = await session.get(Site, facts.event.site_id)
        if site is None:
            raise FixFailed("The site of this problem no longer exists")
        await monitor.apply_probe(session, site, result)
        await commit(session)
        event = await session.get(SecurityEvent, fix.event_id)
        gone = event is None or event.resolved
        grade = site.grade
    if result.error:
        return {
            "method": "probe",
            "fixed": False,
            "grade": grade,
            "stillSeen": [f"the probe failed: {result.error}"],
            "newFindings": [],
        }
    still = [f for f in result.findings if site_fixes.finding_text(f) == facts.rule]
    broken: list[str] = []
    if gone and facts.root is not None and fix.previous:  # SecDash wrote the site's headers.json: its pages still work?
        await ctx.log("Checking that the site's pages still work in a browser beside the pages before the fix")
        previous = {path: base64.b64decode(data) for path, data in fix.previous.items()}
        broken = await still_works.regressions(code_roots.source_of(facts.root), sorted(previous), previous)
    return {
        "method": "probe",
        "fixed": gone,
        "grade": grade,
        "stillSeen": [] if gone else (still or [facts.rule]),
        "newFindings": [],
        "broken": broken,
        "verified": gone and not broken,
    }


def _why_not(outcome: dict[str, Any]) -> str:
    """Why a checked fix is not verified, in one line."""
    if not outcome["fixed"]:
        return f"still seen ({'; '.join(outcome['stillSeen'])})"
    if outcome.get("broken"):
        return f"the finding is gone, but the fix breaks the code ({'; '.join(outcome['broken'])})"
    return f"the finding is gone, but the fix introduced {len(outcome['newFindings'])} new finding(s)"


async def verify(ctx: JobContext, fix: Fix, facts: ProblemFacts) -> None:
    await ctx.progress(force=True, phase="verify", percent=30)
    outcome = await (
        _verify_code(ctx, fix, facts) if facts.kind == FixKind.code and facts.root else _verify_site(ctx, fix, facts)
    )
    outcome["checkedAt"] = utcnow().isoformat().replace("+00:00", "Z")
    status = FixStatus.verified if outcome.get("verified", outcome["fixed"]) else FixStatus.not_verified
    where = facts.file if facts.kind == FixKind.code else facts.site_name
    async with session_scope() as session:
        row = await session.get(Fix, fix.id)
        if row is None:
            return
        row.status, row.verification, row.updated_at = status, outcome, utcnow()
        if status == FixStatus.verified:
            row.verified_at = row.updated_at
        session.add(row)
        if status == FixStatus.verified:
            activities.record(
                session,
                activity_type="patch",
                target=facts.site_name,
                description=f"Fix #{fix.id} verified: {facts.rule} in {where} is gone",
            )
        audit.record(
            session,
            category=LogCategory.security,
            action="Fix verified" if status == FixStatus.verified else "Fix not verified",
            severity=LogSeverity.info if status == FixStatus.verified else LogSeverity.warning,
            description=(
                f"Fix #{fix.id} for problem #{fix.event_id}: {facts.rule} in {where} is gone"
                if status == FixStatus.verified
                else f"Fix #{fix.id} for problem #{fix.event_id}: {_why_not(outcome)[:300]}"
            )
            + (f"; it introduced {len(outcome['newFindings'])} new finding(s)" if outcome["newFindings"] else ""),
            details={"fixId": fix.id, "problemId": fix.event_id, **{k: v for k, v in outcome.items() if k != "files"}},
        )
        mark_changed(session, TOPIC)
        await commit(session)
    level = JobLevel.success if status == FixStatus.verified else JobLevel.warning
    await ctx.log(
        f"Verified: {facts.rule} is gone and the code works as before"
        if status == FixStatus.verified
        else f"Not verified: {_why_not(outcome)}",
        level,
    )
    for text in outcome["newFindings"]:
        await ctx.log(f"New finding introduced by this fix: {text}", JobLevel.warning)
    for text in outcome.get("broken", []):
        await ctx.log(f"Broken by this fix: {text}", JobLevel.error)
    await ctx.progress(force=True, phase="done", percent=100)
