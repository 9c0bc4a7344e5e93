"""Scan jobs: progress, findings as events (not repeated), stop, one at a time."""

from __future__ import annotations

import asyncio

import pytest
from sqlmodel import select

from secdash.models import HistoryLog, SecurityEvent
from secdash.services import scans
from secdash.services.errors import Conflict, Invalid, NotFound
from tests.factories import make_user


@pytest.fixture
def code_dir(tmp_path, settings, monkeypatch):
    (tmp_path / "gem").mkdir()
    (tmp_path / "gem" / "keys.py").write_text('AWS = "AKIAZ7QWERTYU2ASDF3G"\n')
    (tmp_path / "gem" / "ui.js").write_text("el.innerHTML = x;\neval(y);\n")
    (tmp_path / "clean.py").write_text("x = 1\n")
    monkeypatch.setattr(settings, "SCAN_PATHS", str(tmp_path))
    return tmp_path


async def _finish(job_id: int) -> None:
    task = scans._running.get(job_id)
    if task:
        await asyncio.wait_for(task, timeout=60)


async def test_full_scan_completes_with_findings_as_events(session, code_dir):
    admin = await make_user(session, "root@example.com", role="admin")
    job = await scans.start_scan(session=session, actor=admin, scan_type="full")
    assert (job.total_files, job.total_lines) == (3, 4)
    await _finish(job.id)
    job = await scans.current_job(session=session)
    await session.refresh(job)
    assert job.status == "complete" and job.files_scanned == 3 and job.lines_scanned == 4
    assert job.vulnerabilities == 3 and job.threats_found == 2
    found = (await session.exec(select(SecurityEvent).where(SecurityEvent.source == "scanner"))).all()
    assert {(e.details["file"], e.details["line"], e.details["rule"]) for e in found} == {
        ("gem/keys.py", 1, "secret:AWS Access Key"), ("gem/ui.js", 1, "js:innerHTML"), ("gem/ui.js", 2, "js:eval")}
    assert all(e.event_type == "vulnerability_detected" for e in found)
    actions = {log.action for log in (await session.exec(select(HistoryLog))).all()}
    assert {"Code scan started", "Code scan completed"} <= actions

    again = await scans.start_scan(session=session, actor=admin, scan_type="full")
    await _finish(again.id)
    assert len((await session.exec(select(SecurityEvent).where(SecurityEvent.source == "scanner"))).all()) == 3


async def test_quick_scan_skips_medium_rules(session, code_dir):
    admin = await make_user(session, "root@example.com", role="admin")
    job = await scans.start_scan(session=session, actor=admin, scan_type="quick")
    await _finish(job.id)
    rules = {e.details["rule"] for e in (await session.exec(select(SecurityEvent))).all()}
    assert rules == {"secret:AWS Access Key", "js:eval"}


async def test_one_scan_at_a_time_and_stop(session, code_dir, monkeypatch):
    admin = await make_user(session, "root@example.com", role="admin")
    gate = asyncio.Event()
    real_scan_file = scans.scan_file

    def slow_scan_file(target, scan_type):
        import time

        time.sleep(0.2)
        return real_scan_file(target, scan_type)

    monkeypatch.setattr(scans, "scan_file", slow_scan_file)
    monkeypatch.setattr(scans, "PROGRESS_EVERY_SECONDS", 0)
    job = await scans.start_scan(session=session, actor=admin, scan_type="full")
    with pytest.raises(Conflict):
        await scans.start_scan(session=session, actor=admin, scan_type="quick")
    await scans.stop_scan(session=session, actor=admin)
    gate.set()
    await _finish(job.id)
    session.expire_all()
    stopped = await scans.current_job(session=session)
    assert stopped.status == "stopped" and stopped.files_scanned < stopped.total_files
    with pytest.raises(NotFound):
        await scans.stop_scan(session=session, actor=admin)


async def test_bad_scan_type(session, code_dir):
    admin = await make_user(session, "root@example.com", role="admin")
    with pytest.raises(Invalid, match="scanType"):
        await scans.start_scan(session=session, actor=admin, scan_type="deep")


def _blocking_scan_file(block_at: int):
    """A scanner without findings that waits inside the file number `block_at` (1-based) until released."""
    import threading

    entered, release, seen = threading.Event(), threading.Event(), []

    def scan_file(target, scan_type):
        seen.append(target.display)
        if len(seen) == block_at:
            entered.set()
            release.wait(timeout=30)
        return []

    return scan_file, entered, release, seen


async def _stop_inside_file(session, monkeypatch, block_at: int):
    admin = await make_user(session, "root@example.com", role="admin")
    scan_file, entered, release, seen = _blocking_scan_file(block_at)
    monkeypatch.setattr(scans, "scan_file", scan_file)
    monkeypatch.setattr(scans, "PROGRESS_EVERY_SECONDS", 3600)  # progress saves never decide when a stop is seen
    job = await scans.start_scan(session=session, actor=admin, scan_type="full")
    assert await asyncio.to_thread(entered.wait, 30)
    await scans.stop_scan(session=session, actor=admin)
    release.set()
    await _finish(job.id)
    session.expire_all()
    return await scans.current_job(session=session), seen


async def test_a_stop_is_honoured_before_the_next_file_and_keeps_what_was_scanned(session, code_dir, monkeypatch):
    """Regression: "Scan stopped" showed a full bar and 125/125 lines (the scan went on to the end)."""
    job, seen = await _stop_inside_file(session, monkeypatch, block_at=2)
    assert job.status == "stopped" and len(seen) == 2
    targets = scans.collect_targets(scans.scan_roots())
    assert (job.files_scanned, job.lines_scanned) == (2, targets[0].lines + targets[1].lines)
    assert job.lines_scanned < job.total_lines
    logs = (await session.exec(select(HistoryLog).where(HistoryLog.action == "Code scan stopped"))).all()
    assert any("2 of 3 files" in log.description for log in logs)


async def test_a_stop_that_arrives_in_the_last_file_finds_the_scan_complete(session, code_dir, monkeypatch):
    job, seen = await _stop_inside_file(session, monkeypatch, block_at=3)
    assert job.status == "complete" and (job.files_scanned, job.lines_scanned) == (3, 4) and len(seen) == 3
