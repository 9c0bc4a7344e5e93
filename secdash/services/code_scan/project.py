"""A scan of a set of files outside the dashboard's job (the `scan` CLI, the benchmark): semgrep once over all of
them in one bounded worker while the per-file engines run file by file in another."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Sequence
from dataclasses import dataclass, field

from secdash.core import bounded
from secdash.services.code_scan import engine
from secdash.services.code_scan.engine import Finding, ScanTarget, ScanType
from secdash.services.code_scan.skips import Skipped


@dataclass
class ProjectScan:
    scan_type: ScanType
    targets: list[ScanTarget]
    findings: list[Finding] = field(default_factory=list)
    skipped: list[Skipped] = field(default_factory=list)
    not_scanned: dict[str, str] = field(default_factory=dict)  # file -> why an engine could not read (all of) it
    problems: list[str] = field(default_factory=list)  # an engine that did not run at all, and why
    seconds: float = 0.0

    @property
    def complete(self) -> bool:
        return not self.not_scanned and not self.problems


async def _semgrep(targets: Sequence[ScanTarget], scan_type: ScanType, result: ProjectScan) -> list[Finding]:
    try:
        batch = await engine.scan_batch_bounded(targets, scan_type)
    except (bounded.BudgetExceeded, bounded.Busy) as exc:
        why = engine.not_scanned_reason(exc).removeprefix("not scanned: ")
        result.problems.append(f"semgrep did not finish: {why}; its rules were not applied")
        return []
    if batch.problem:
        result.problems.append(batch.problem)
    for file, why in batch.failed.items():
        result.not_scanned[file] = why
    return batch.findings


async def _per_file(targets: Sequence[ScanTarget], scan_type: ScanType, result: ProjectScan) -> list[Finding]:
    found = []
    for target in targets:
        try:
            found += await engine.scan_file_bounded(target, scan_type, semgrep_too=False)
        except (bounded.BudgetExceeded, bounded.Busy) as exc:
            result.not_scanned[target.display] = engine.not_scanned_reason(exc)
    return found


async def scan(targets: Sequence[ScanTarget], scan_type: ScanType, skipped: Sequence[Skipped] = ()) -> ProjectScan:
    """Every engine of the scan type over the files, each in bounded workers; what could not be read is said."""
    started = time.monotonic()
    result = ProjectScan(scan_type=scan_type, targets=list(targets), skipped=list(skipped))
    batch, per_file = await asyncio.gather(_semgrep(targets, scan_type, result), _per_file(targets, scan_type, result))
    result.findings = engine.merge(per_file + batch)
    result.seconds = time.monotonic() - started
    return result
