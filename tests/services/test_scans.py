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
