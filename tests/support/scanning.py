"""Stand-in scanners: the real one runs each file in a worker process (core/bounded.py), out of monkeypatch's reach,
so a test that must hold or count a scan replaces `scans.scan_file_bounded` with one of this process."""

from __future__ import annotations

import asyncio


def in_a_thread(scan_file):
    """`scan_file(target, scan_type)` (a plain function) as the scan's bounded scanner, run in a thread."""

    async def bounded(target, scan_type):
        return await asyncio.to_thread(scan_file, target, scan_type)

    return bounded
