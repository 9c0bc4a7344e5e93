"""Stand-in scanners: the real one runs each file in a worker process (core/bounded.py), out of monkeypatch's reach,
so a test that must hold or count a scan replaces `scans.scan_file_bounded` with one of this process (and, when
the test's scanner is all there is to find, `scans.scan_batch_bounded`, semgrep's run over the whole scan)."""

from __future__ import annotations

import asyncio

from secdash.services.code_scan import BatchResult


def in_a_thread(scan_file):
    """`scan_file(target, scan_type)` (a plain function) as the scan's bounded per-file scanner, run in a thread."""

    async def bounded(target, scan_type, **_options):
        return await asyncio.to_thread(scan_file, target, scan_type)

    return bounded


async def no_semgrep(targets, scan_type):
    """A semgrep run that finds nothing (the test's stand-in scanner decides every finding)."""
    return BatchResult(findings=[], failed={})
