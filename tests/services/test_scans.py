"""Scan jobs: progress, findings as events (not repeated), stop, one at a time."""

from __future__ import annotations

import asyncio
import threading

import pytest
from sqlmodel import select

from secdash.jobs import runner
from secdash.models import EventSeverity, EventType, HistoryLog, SecurityEvent
from secdash.services import code_scan
from secdash.services.errors import Conflict, Invalid, NotFound
from secdash.services.scanning import scans
from tests.factories import make_user
from tests.support.scanning import in_a_thread, no_semgrep


@pytest.fixture
def code_dir(tmp_path, settings, monkeypatch):
    (tmp_path / "gem").mkdir()
    (tmp_path / "gem" / "keys.py").write_text('AWS = "AKIAZ7QWERTYU2ASDF3G"\n')
    (tmp_path / "gem" / "ui.js").write_text("el.innerHTML = x;\neval(y);\n")
    (tmp_path / "clean.py").write_text("x = 1\n")
    monkeypatch.setattr(settings, "SCAN_PATHS", str(tmp_path))
    return tmp_path


async def _finish(job_id: int) -> None:
    await runner.wait_for(job_id, timeout=60)


async def test_full_scan_completes_with_findings_as_events(session, code_dir):
    admin = await make_user(session, "root@example.com", role="admin")
    job = await scans.start_scan(session=session, actor=admin, scan_type="full")
    assert (job.total_files, job.total_lines) == (3, 4)
    await _finish(job.id)
    session.expire_all()
    job = await scans.current_job(session=session)
    assert job.status == "complete" and job.files_scanned == 3 and job.lines_scanned == 4
    assert job.vulnerabilities == 3 and job.threats_found == 2
    found = (await session.exec(select(SecurityEvent).where(SecurityEvent.source == "scanner"))).all()
    assert {(e.details["file"], e.details["line"], e.details["rule"]) for e in found} == {
        ("gem/keys.py", 1, "secret:AWS Access Key"),
        ("gem/ui.js", 1, "js:innerHTML"),
        ("gem/ui.js", 2, "js:eval"),
    }
    assert all(e.event_type == "vulnerability_detected" for e in found)
    actions = {log.action for log in (await session.exec(select(HistoryLog))).all()}
    assert {"Code scan started", "Code scan completed"} <= actions

    again = await scans.start_scan(session=session, actor=admin, scan_type="full")
    await _finish(again.id)
    assert len((await session.exec(select(SecurityEvent).where(SecurityEvent.source == "scanner"))).all()) == 3


async def test_quick_scan_runs_the_fast_engines_at_every_severity(session, code_dir):
    """Issue 22: a quick scan is not a severity filter (it dropped medium SQL injection and unsafe YAML)."""
    admin = await make_user(session, "root@example.com", role="admin")
    job = await scans.start_scan(session=session, actor=admin, scan_type="quick")
    await _finish(job.id)
    found = {e.details["rule"]: e for e in (await session.exec(select(SecurityEvent))).all()}
    assert set(found) == {"secret:AWS Access Key", "js:eval", "js:innerHTML"}
    assert found["js:innerHTML"].severity == "medium"
    assert {e.details["tool"] for e in found.values()} == {"detect-secrets", "semgrep"}
    assert found["js:eval"].details["cwe"] == 95


async def test_one_scan_at_a_time_and_stop(session, code_dir, monkeypatch):
    admin = await make_user(session, "root@example.com", role="admin")
    # The first file's scan waits until the stop has been asked for: the stop always lands mid-scan, not by timing.
    stopped_asked = threading.Event()
    real_scan_file = code_scan.scan_file

    def slow_scan_file(target, scan_type):
        assert stopped_asked.wait(timeout=60)
        return real_scan_file(target, scan_type)

    monkeypatch.setattr(scans, "scan_file_bounded", in_a_thread(slow_scan_file))
    monkeypatch.setattr(scans, "PROGRESS_EVERY_SECONDS", 0)
    job = await scans.start_scan(session=session, actor=admin, scan_type="full")
    with pytest.raises(Conflict):
        await scans.start_scan(session=session, actor=admin, scan_type="quick")
    await scans.stop_scan(session=session, actor=admin)
    stopped_asked.set()
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
    monkeypatch.setattr(scans, "scan_file_bounded", in_a_thread(scan_file))
    monkeypatch.setattr(scans, "scan_batch_bounded", no_semgrep)  # done at once: only the per-file loop is stopped
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


# Finding identity (issue 9): no line number in the fingerprint; a complete scan closes what it no longer sees.


async def _scan(session, admin, scan_type: str = "full"):
    job = await scans.start_scan(session=session, actor=admin, scan_type=scan_type)
    await _finish(job.id)
    session.expire_all()
    return await scans.current_job(session=session)


async def _scanner_events(session, **where):
    query = select(SecurityEvent).where(SecurityEvent.source == "scanner")
    for name, value in where.items():
        query = query.where(getattr(SecurityEvent, name) == value)
    return (await session.exec(query.order_by(SecurityEvent.id))).all()


async def test_lines_inserted_above_a_finding_keep_the_same_open_event(session, code_dir):
    admin = await make_user(session, "root@example.com", role="admin")
    await _scan(session, admin)
    before = {e.details["rule"]: (e.id, e.fingerprint) for e in await _scanner_events(session)}
    (code_dir / "gem" / "ui.js").write_text("// a comment\n\nconst a = 1;\nel.innerHTML = x;\n   eval(y);\n")
    (code_dir / "gem" / "keys.py").write_text('"""Keys."""\n\nAWS = "AKIAZ7QWERTYU2ASDF3G"\n')
    await _scan(session, admin)
    found = await _scanner_events(session)
    assert {e.details["rule"]: (e.id, e.fingerprint) for e in found} == before
    assert all(not e.resolved for e in found)
    lines = {e.details["rule"]: e.details["line"] for e in found}
    assert lines == {"secret:AWS Access Key": 3, "js:innerHTML": 4, "js:eval": 5}  # the event shows the current line
    assert not await _scanner_events(session, event_type="vulnerability_fixed")


async def test_an_edited_line_that_still_breaks_its_rule_keeps_its_open_event(session, code_dir):
    """A line with several findings, edited for one of them: the others are the same findings, not fixed ones
    that come back as new (the Fix Mode run saw B603/B607 closed as fixed and reopened after a B108 fix)."""
    admin = await make_user(session, "root@example.com", role="admin")
    await _scan(session, admin)
    before = {e.details["rule"]: e.id for e in await _scanner_events(session)}
    (code_dir / "gem" / "ui.js").write_text("el.innerHTML = safe(x);\neval(y);\n")  # the innerHTML line edited
    await _scan(session, admin)
    found = await _scanner_events(session)
    assert {e.details["rule"]: e.id for e in found} == before
    assert all(not e.resolved for e in found)
    assert not await _scanner_events(session, event_type="vulnerability_fixed")


async def test_removed_code_is_closed_by_the_next_complete_scan_naming_it(session, code_dir):
    admin = await make_user(session, "root@example.com", role="admin")
    await _scan(session, admin)
    (code_dir / "gem" / "ui.js").write_text("el.innerHTML = x;\nconsole.log(y);\n")
    job = await _scan(session, admin)
    by_rule = {e.details["rule"]: e for e in await _scanner_events(session, event_type="vulnerability_detected")}
    assert len(by_rule) == 3
    fixed = by_rule["js:eval"]
    assert fixed.resolved and fixed.resolved_by == "scanner" and f"#{job.id}" in fixed.resolution_note
    assert not by_rule["js:innerHTML"].resolved and not by_rule["secret:AWS Access Key"].resolved
    records = await _scanner_events(session, event_type="vulnerability_fixed")
    assert len(records) == 1
    assert records[0].details["scanId"] == job.id and records[0].details["eventId"] == fixed.id
    assert f"#{job.id}" in records[0].description and "js:eval" in records[0].description
    # scanning again changes nothing more; the code coming back opens a new finding
    await _scan(session, admin)
    assert len(await _scanner_events(session, event_type="vulnerability_fixed")) == 1
    (code_dir / "gem" / "ui.js").write_text("el.innerHTML = x;\neval(y);\n")
    await _scan(session, admin)
    evals = await _scanner_events(session, event_type="vulnerability_detected")
    assert [e.resolved for e in evals if e.details["rule"] == "js:eval"] == [True, False]


async def test_a_quick_scan_only_closes_findings_of_the_rules_it_runs(session, code_dir):
    """A quick scan leaves njsscan's rule pack out: it never closes that pack's findings; a full scan does."""
    admin = await make_user(session, "root@example.com", role="admin")
    # a weakness only njsscan's pack flags (its regex_dos, the example before, is superseded by node:redos)
    (code_dir / "gem" / "profile.js").write_text("process.env.NODE_TLS_REJECT_UNAUTHORIZED = '0';\n")
    await _scan(session, admin)
    assert "njsscan:node_tls_reject" in {e.details["rule"] for e in await _scanner_events(session)}
    (code_dir / "gem" / "ui.js").write_text("x = 1;\n")  # eval and innerHTML removed: quick rules
    (code_dir / "gem" / "profile.js").write_text("x = 1;\n")
    await _scan(session, admin, "quick")
    state = {e.details["rule"]: e.resolved for e in await _scanner_events(session, event_type="vulnerability_detected")}
    assert state == {"secret:AWS Access Key": False, "js:innerHTML": True, "js:eval": True, "njsscan:node_tls_reject": False}
    await _scan(session, admin, "full")
    assert all(
        e.resolved
        for e in await _scanner_events(session, event_type="vulnerability_detected")
        if e.details["rule"] != "secret:AWS Access Key"
    )


async def test_a_stopped_scan_closes_nothing(session, code_dir, monkeypatch):
    admin = await make_user(session, "first@example.com", role="admin")
    await _scan(session, admin)
    (code_dir / "gem" / "keys.py").write_text("AWS = None\n")
    (code_dir / "gem" / "ui.js").write_text("x = 1;\n")
    job, seen = await _stop_inside_file(session, monkeypatch, block_at=2)
    assert job.status == "stopped"
    assert all(not e.resolved for e in await _scanner_events(session))
    assert not await _scanner_events(session, event_type="vulnerability_fixed")


async def test_open_findings_with_line_based_fingerprints_are_adopted_once(session, code_dir):
    """Events recorded before the change (fingerprint of file:line:rule) are matched by path, rule and line."""
    import hashlib

    from secdash.services.problems import events

    admin = await make_user(session, "root@example.com", role="admin")
    old = events.record(
        session,
        event_type=EventType.vulnerability_detected,
        severity=EventSeverity.high,
        description="Possible AWS Access Key committed in source (gem/keys.py:1)",
        source="scanner",
        fingerprint=hashlib.sha256(b"gem/keys.py:1:secret:AWS Access Key").hexdigest()[:40],
        details={"file": "gem/keys.py", "line": 1, "rule": "secret:AWS Access Key", "tool": "detect-secrets", "scanId": 0},
    )
    moved = events.record(
        session,
        event_type=EventType.vulnerability_detected,
        severity=EventSeverity.high,
        description="Use of eval (gem/ui.js:7)",
        source="scanner",
        fingerprint=hashlib.sha256(b"gem/ui.js:7:js:eval").hexdigest()[:40],
        details={"file": "gem/ui.js", "line": 7, "rule": "js:eval", "tool": "secdash-rules", "scanId": 0},
    )
    await session.commit()
    old_id, old_print, moved_id = old.id, old.fingerprint, moved.id
    job = await _scan(session, admin)
    found = await _scanner_events(session, event_type="vulnerability_detected")
    keys = [e for e in found if e.details["rule"] == "secret:AWS Access Key"]
    assert [e.id for e in keys] == [old_id] and not keys[0].resolved and keys[0].fingerprint != old_print
    evals = [e for e in found if e.details["rule"] == "js:eval"]
    # an old event that no longer matches its line is closed as superseded (not as fixed): the finding is still there
    assert [(e.id == moved_id, e.resolved) for e in evals] == [(True, True), (False, False)]
    assert f"#{job.id}" in evals[0].resolution_note and "superseded" in evals[0].resolution_note
    assert not await _scanner_events(session, event_type="vulnerability_fixed")
    await _scan(session, admin)
    assert len(await _scanner_events(session, event_type="vulnerability_detected")) == 4


async def test_the_scan_pause_spaces_files_and_a_stop_lands_between_them(session, code_dir, settings, monkeypatch):
    """SECDASH_SCAN_PAUSE_MS: a pause after each file leaves room to stop a scan before it reads everything."""
    monkeypatch.setattr(settings, "SCAN_PAUSE_MS", 400)
    admin = await make_user(session, "root@example.com", role="admin")
    job = await scans.start_scan(session=session, actor=admin, scan_type="full")
    for _ in range(200):
        session.expire_all()
        if (await scans.current_job(session=session)).files_scanned >= 1:
            break
        await asyncio.sleep(0.02)
    await scans.stop_scan(session=session, actor=admin)
    await _finish(job.id)
    session.expire_all()
    stopped = await scans.current_job(session=session)
    assert stopped.status == "stopped" and 1 <= stopped.files_scanned < stopped.total_files


def test_time_left_is_the_pace_so_far_applied_to_the_lines_left():
    """A running scan that read a quarter of its lines in a minute has three minutes left; a scan that has read
    nothing yet, or has ended, shows no estimate."""
    from datetime import timedelta

    from secdash.models import ScanView, utcnow

    now = utcnow()
    running = ScanView(
        id=1,
        scan_type="quick",
        status="running",
        job_status="running",
        started_at=now - timedelta(seconds=60),
        total_lines=400,
        lines_scanned=100,
    )
    assert scans.time_left(running, now) == "3m 00s"
    assert scans.time_left(running.model_copy(update={"lines_scanned": 0}), now) == ""
    assert scans.time_left(running.model_copy(update={"status": "complete"}), now) == ""
