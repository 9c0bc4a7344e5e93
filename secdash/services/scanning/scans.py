"""Security Scan: a job of kind "scan" (start, progress, stop on any worker) whose findings become events."""

from __future__ import annotations

import asyncio
import logging
import time
from datetime import datetime
from pathlib import Path
from typing import Any

from sqlmodel.ext.asyncio.session import AsyncSession

from secdash.core import bounded
from secdash.core.config import get_settings
from secdash.core.db import session_scope
from secdash.core.unit import commit
from secdash.jobs import JobContext, register, runner, store
from secdash.models import LogCategory, LogSeverity, UserPublic, as_utc, utcnow
from secdash.models.jobs import Job, JobLevel
from secdash.models.scans import ScanView
from secdash.services import audit
from secdash.services.agents import activities
from secdash.services.builder import project_dir
from secdash.services.code_scan import (
    ENGINES,
    Finding,
    ScanTarget,
    collect,
    collect_targets,
    merge,
    not_scanned_reason,
    scan_batch_bounded,
    scan_file_bounded,
    total_lines,
)
from secdash.services.errors import Conflict, Invalid, NotFound
from secdash.services.identity.permissions import require_admin
from secdash.services.scanning import code_roots
from secdash.services.scanning.scan_batch import await_semgrep, run_semgrep, semgrep_findings, semgrep_unread_reasons
from secdash.services.scanning.scan_findings import close_unseen, record_findings

log = logging.getLogger(__name__)

TOPIC = "scans"
KIND = "scan"
SCAN_TYPES = ("quick", "full")
# Engines applied per scan type (shown as "agents scanning"): code_scan.ENGINES.
PROGRESS_EVERY_SECONDS = 0.5


def agents_scanning(view: ScanView) -> int:
    """The spec's "agents scanning": the engines of the scan's type while it runs."""
    return view.agents_scanning(ENGINES)


def time_left(view: ScanView, now: datetime | None = None) -> str:
    """The running scan's estimated time left ("3m 07s"), at the pace it has read lines so far; empty while it has
    read none or when it is not running."""
    if view.status != "running" or not view.lines_scanned:
        return ""
    elapsed = ((now or utcnow()) - as_utc(view.started_at)).total_seconds()
    remaining = elapsed / view.lines_scanned * (view.total_lines - view.lines_scanned)
    return f"{int(remaining // 60)}m {int(remaining % 60):02d}s"


def scan_roots() -> list[Path]:
    """The configured roots, then the Live Code Builder projects of administrators (services/builder/project_dir)."""
    return code_roots.configured_roots() + project_dir.code_roots()


def scan_targets() -> list[tuple[Path, ScanTarget]]:
    """(code root, file) pairs the next scan reads; a root with a workspace is read from its workspace."""
    return [(root, target) for root in scan_roots() for target in collect_targets([code_roots.source_of(root)])]


def _skipped() -> list[str]:
    """What the skip rules (code_scan/skips.py) leave out of the next scan, as the scan log says it."""
    counts: dict[str, int] = {}
    for root in scan_roots():
        for skipped in collect([code_roots.source_of(root)]).skipped:
            counts[skipped.category] = counts.get(skipped.category, 0) + 1
    return [f"{n} {category}" for category, n in counts.items()]


# Counting lines reads every file: every dashboard load shares one count for a short while.
TARGET_SUMMARY_TTL_SECONDS = 30.0
_summary_cache: dict[tuple[str, ...], tuple[float, tuple[int, int]]] = {}


def target_summary() -> tuple[int, int]:
    """(files, lines) the next scan would read (recounted at most every 30 s)."""
    roots = scan_roots()
    key = tuple(str(root) for root in roots)
    cached = _summary_cache.get(key)
    if cached and time.monotonic() - cached[0] < TARGET_SUMMARY_TTL_SECONDS:
        return cached[1]
    targets = [target for _root, target in scan_targets()]
    summary = (len(targets), total_lines(targets))
    _summary_cache[key] = (time.monotonic(), summary)
    return summary


def _view(job: Job | None) -> ScanView | None:
    return ScanView.from_job(job) if job is not None else None


async def current_job(*, session: AsyncSession) -> ScanView | None:
    """The newest scan (a scan whose worker died is marked interrupted by the job reaper and shows as failed)."""
    return _view(await store.latest(session, KIND))


async def start_scan(*, session: AsyncSession, actor: UserPublic, scan_type: str) -> ScanView:
    """Start a quick or full scan of the configured code paths as a job (admins only; one at a time; audited)."""
    require_admin(actor, "start scans")
    if scan_type not in SCAN_TYPES:
        raise Invalid("scanType must be quick or full")
    latest = await store.latest(session, KIND)
    if latest is not None and store.is_active(latest):
        raise Conflict("A scan is already running")
    targets = [target for _root, target in await asyncio.to_thread(scan_targets)]
    if not targets:
        raise Invalid("There is no code to scan: check SECDASH_SCAN_PATHS")
    files, lines = len(targets), total_lines(targets)
    try:  # the database admits one active scan: a scan started meanwhile wins
        job = await runner.enqueue(
            session,
            kind=KIND,
            params={"scanType": scan_type},
            owner_user_id=actor.id,
            owner_email=actor.email,
            singleton_key=KIND,
            progress=_progress(files, lines),
        )
    except store.ActiveJobExists:
        raise Conflict("A scan is already running") from None
    audit.record(
        session,
        category=LogCategory.security,
        action="Code scan started",
        actor_user_id=actor.id,
        description=f"{actor.email} started a {scan_type} scan of {files} files ({lines} lines)",
        details={"scanId": job.id, "scanType": scan_type, "files": files, "lines": lines},
    )
    await commit(session)
    return ScanView.from_job(job)


async def stop_scan(*, session: AsyncSession, actor: UserPublic) -> ScanView:
    """Ask the running scan to stop (admins only; whichever worker runs it stops before its next file)."""
    require_admin(actor, "stop scans")
    job = await store.latest(session, KIND)
    if job is None or not store.request_stop(session, job):
        raise NotFound("No scan is running")
    scan_type = job.params.get("scanType", "")
    audit.record(
        session,
        category=LogCategory.security,
        action="Code scan stop requested",
        severity=LogSeverity.warning,
        actor_user_id=actor.id,
        description=f"{actor.email} stopped the {scan_type} scan",
        details={"scanId": job.id, "worker": runner.worker_id()},
    )
    await commit(session)
    return ScanView.from_job(job)


def _progress(total_files: int, total_lines: int, **done: int | str) -> dict[str, Any]:
    return {
        "totalFiles": total_files,
        "totalLines": total_lines,
        "filesScanned": done.get("files", 0),
        "linesScanned": done.get("lines", 0),
        "currentFile": done.get("current", ""),
        "threatsFound": done.get("threats", 0),
        "vulnerabilities": done.get("vulnerabilities", 0),
    }


@register(KIND, topic=TOPIC, shared=True)
async def run_scan(ctx: JobContext) -> dict[str, int]:
    """Scan file by file in bounded workers, saving progress and findings as it goes; semgrep reads every file
    in one run beside them (started once per scan) and its findings are recorded when it ends.

    A stop is honoured before the next file (and while semgrep runs), so a stopped scan keeps what it really
    read; a scan that read every file is complete, even if a stop arrived during its last file.
    """
    scan_type = ctx.params["scanType"]
    pairs = await asyncio.to_thread(scan_targets)  # this worker's view of the code roots
    total_files, all_lines = len(pairs), total_lines([target for _root, target in pairs])
    async with session_scope() as session:
        await code_roots.ensure_code_roots(session)
        await commit(session)
    await ctx.progress(force=True, **_progress(total_files, all_lines))
    await ctx.log(f"{scan_type.title()} scan of {total_files} files ({all_lines} lines): {', '.join(ENGINES[scan_type])}")
    skipped = await asyncio.to_thread(_skipped)
    if skipped:
        await ctx.log(f"Skipped by the skip rules (vendored, minified, generated, documentation, tests): {', '.join(skipped)}")
    semgrep_task = asyncio.create_task(run_semgrep(pairs, scan_type, scan_batch_bounded))
    pause_ms = get_settings().SCAN_PAUSE_MS
    lines = files = threats = vulnerabilities = unscanned = 0
    saved = False  # the last progress save read the stop flag: the next file needs no second read
    seen: dict[tuple[str, str], set[str]] = {}  # (root, file) -> fingerprints found: what a complete scan closes
    rules_seen: dict[str, set[str]] = {}
    per_file: dict[tuple[str, str], list[Finding]] = {}
    try:
        for root_path, target in pairs:
            if await ctx.should_stop(max_age=None if saved else 0):
                break
            files += 1
            lines += target.lines
            try:
                findings = await scan_file_bounded(target, scan_type, semgrep_too=False)
            except (bounded.BudgetExceeded, bounded.Busy) as exc:  # its open findings stay open: it was not read
                unscanned += 1
                await ctx.log(f"{target.display}: {not_scanned_reason(exc)}", JobLevel.warning)
                saved = await ctx.progress(
                    **_progress(
                        total_files,
                        all_lines,
                        files=files,
                        lines=lines,
                        current=target.display,
                        threats=threats,
                        vulnerabilities=vulnerabilities,
                    )
                )
                continue
            root = str(root_path)
            per_file[(root, target.display)] = findings
            seen[(root, target.display)] = set()
            rules_seen.setdefault(target.display, set()).update(f.rule for f in findings)
            if findings:
                async with session_scope() as session:
                    seen[(root, target.display)] = await record_findings(session, ctx.job_id, findings, root=root)
                    await commit(session)
                threats += sum(1 for f in findings if f.severity == "high")
                vulnerabilities += len(findings)
                await ctx.log(f"{target.display}: {len(findings)} finding(s)", JobLevel.warning)
            saved = await ctx.progress(
                every=0 if findings or files == total_files else PROGRESS_EVERY_SECONDS,
                **_progress(
                    total_files,
                    all_lines,
                    files=files,
                    lines=lines,
                    current=target.display,
                    threats=threats,
                    vulnerabilities=vulnerabilities,
                ),
            )
            if pause_ms and files < total_files:
                await asyncio.sleep(pause_ms / 1000)
                saved = False  # a stop may have come during the pause
        semgrep_unread: set[tuple[str, str]] = set()
        if not ctx.honoured_stop:
            await ctx.log("Waiting for semgrep's rules over every file")
            batch = await await_semgrep(ctx, semgrep_task)
            if isinstance(batch, str) or batch is None:
                semgrep_unread = {(str(root), target.display) for root, target in pairs}
                if isinstance(batch, str):
                    await ctx.log(f"{batch}: semgrep's rules were not applied and its open findings stay open", JobLevel.warning)
            else:
                found, semgrep_unread = semgrep_findings(pairs, batch)
                for (_root, file), why in sorted(semgrep_unread_reasons(pairs, batch).items()):
                    await ctx.log(f"{file}: {why}", JobLevel.warning)
                for (root, file), findings in sorted(found.items()):
                    kept = [f for f in merge(per_file.get((root, file), []) + findings) if f in findings]
                    if not kept or (root, file) not in seen:
                        continue
                    async with session_scope() as session:
                        seen[(root, file)] |= await record_findings(session, ctx.job_id, kept, root=root)
                        await commit(session)
                    rules_seen.setdefault(file, set()).update(f.rule for f in kept)
                    threats += sum(1 for f in kept if f.severity == "high")
                    vulnerabilities += len(kept)
                    await ctx.log(f"{file}: {len(kept)} finding(s) (semgrep)", JobLevel.warning)
                await ctx.progress(
                    force=True,
                    **_progress(
                        total_files,
                        all_lines,
                        files=files,
                        lines=lines,
                        current="",
                        threats=threats,
                        vulnerabilities=vulnerabilities,
                    ),
                )
    finally:
        semgrep_task.cancel()
    complete = not ctx.honoured_stop
    result = {"files": files, "lines": lines, "findings": vulnerabilities, "high": threats, "unscanned": unscanned}
    async with session_scope() as session:
        if complete:
            result["fixed"] = await close_unseen(session, ctx.job_id, scan_type, seen, rules_seen, semgrep_unread=semgrep_unread)
            activities.record(
                session,
                activity_type="scan",
                target="code",
                status="completed",
                description=f"{scan_type.title()} code scan: {vulnerabilities} findings in {files} files ({threats} high)",
            )
            audit.record(
                session,
                category=LogCategory.security,
                action="Code scan completed",
                description=f"{scan_type.title()} scan found {vulnerabilities} issues ({threats} high) in {files} files"
                f"{f'; {unscanned} files could not be scanned' if unscanned else ''}",
                severity=LogSeverity.warning if threats else LogSeverity.info,
                details={"scanId": ctx.job_id, **result},
            )
        else:
            covered = (
                f"{files} of {total_files} files ({lines} of {all_lines} lines, {lines * 100 // all_lines if all_lines else 0}%)"
            )
            activities.record(
                session,
                activity_type="scan",
                target="code",
                status="stopped",
                description=f"{scan_type.title()} code scan stopped after {covered}: {vulnerabilities} findings so far",
            )
            audit.record(
                session,
                category=LogCategory.security,
                action="Code scan stopped",
                severity=LogSeverity.warning,
                description=f"{scan_type.title()} scan stopped after {covered}; {vulnerabilities} issues "
                f"({threats} high) found before the stop",
                details={"scanId": ctx.job_id, **result, "totalFiles": total_files, "totalLines": all_lines},
            )
        await commit(session)
    await ctx.log(
        f"Complete: {vulnerabilities} findings ({threats} high) in {files} files"
        f"{f'; {unscanned} could not be scanned (see above)' if unscanned else ''}"
        if complete
        else f"Stopped after {files} of {total_files} files",
        JobLevel.success if complete else JobLevel.warning,
    )
    return result
