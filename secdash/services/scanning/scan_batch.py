"""The Security Scan's semgrep run: once per scan, over every file of every code root, in one bounded worker.

The per-file engines run file by file beside it (services/scanning/scans.py); semgrep's findings are recorded when it ends.
Files of different roots may share a relative path, so the batch names each file "<root index>/<path>"."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import replace
from pathlib import Path

from secdash.core import bounded
from secdash.jobs import JobContext
from secdash.services.code_scan import (
    BatchResult,
    Finding,
    ScanTarget,
    not_scanned_reason,
    scan_batch_bounded,
)


def _split(pairs: list[tuple[Path, ScanTarget]], key: str) -> tuple[str, str]:
    """(root, file) of a batch display path ("<index>/<file>")."""
    index, file = key.split("/", 1)
    return str(pairs[int(index)][0]), file


def semgrep_findings(
    pairs: list[tuple[Path, ScanTarget]], batch: BatchResult
) -> tuple[dict[tuple[str, str], list[Finding]], set[tuple[str, str]]]:
    """semgrep's findings by (root, file), and the files it could not (fully) read."""
    found: dict[tuple[str, str], list[Finding]] = {}
    for finding in batch.findings:
        root, file = _split(pairs, finding.file)
        found.setdefault((root, file), []).append(replace(finding, file=file))
    return found, {_split(pairs, key) for key in batch.failed}


def semgrep_unread_reasons(pairs: list[tuple[Path, ScanTarget]], batch: BatchResult) -> dict[tuple[str, str], str]:
    return {_split(pairs, key): why for key, why in batch.failed.items()}


async def run_semgrep(
    pairs: list[tuple[Path, ScanTarget]], scan_type: str, runner: Callable[..., Awaitable[BatchResult]] = scan_batch_bounded
) -> BatchResult | str:
    """semgrep over the whole scan, once, in a bounded worker: its findings, or why it did not run."""
    batch = [replace(target, display=f"{index}/{target.display}") for index, (_root, target) in enumerate(pairs)]
    try:
        result = await runner(batch, scan_type)
    except (bounded.BudgetExceeded, bounded.Busy) as exc:
        return f"semgrep did not finish ({not_scanned_reason(exc).removeprefix('not scanned: ')})"
    return result.problem or result


async def await_semgrep(ctx: JobContext, task: asyncio.Task) -> BatchResult | str | None:
    """The semgrep task's result; None when a stop came first (the task is then cancelled, its worker killed)."""
    while not task.done():
        if await ctx.should_stop(max_age=0):
            task.cancel()
            return None
        await asyncio.wait({task}, timeout=0.5)
    return task.result()
