"""The jobs API and the Security Scan API: who may read, start and stop; logs read from a sequence on."""

from __future__ import annotations

import asyncio
import threading

import pytest

from secdash.jobs import runner
from secdash.services.scanning import scans
from tests.api.conftest import signed_in
from tests.support.scanning import in_a_thread


@pytest.fixture
def code_dir(tmp_path, settings, monkeypatch):
    (tmp_path / "gem").mkdir()
    (tmp_path / "gem" / "keys.py").write_text('AWS = "AKIAZ7QWERTYU2ASDF3G"\n')
    (tmp_path / "gem" / "ui.js").write_text("el.innerHTML = x;\n")
    monkeypatch.setattr(settings, "SCAN_PATHS", str(tmp_path))
    return tmp_path


@pytest.fixture
def held_scan(monkeypatch):
    """Scanning waits inside the first file until released, so a test can act on a running scan."""
    entered, release = threading.Event(), threading.Event()

    def scan_file(target, scan_type):
        entered.set()
        release.wait(30)
        return []

    monkeypatch.setattr(scans, "scan_file_bounded", in_a_thread(scan_file))
    yield entered, release
    release.set()


async def test_every_route_wants_a_signed_in_user(client, session):
    for method, path in (
        ("GET", "/api/jobs/1"),
        ("GET", "/api/jobs/1/logs"),
        ("POST", "/api/jobs/1/stop"),
        ("GET", "/api/security-scan"),
        ("POST", "/api/security-scan/stop"),
    ):
        response = await client.request(method, path)
        assert response.status_code == 401 and "message" in response.json(), path
    response = await client.post("/api/security-scan/start", json={"scanType": "quick"})
    assert response.status_code == 401


async def test_admin_runs_a_scan_and_reads_its_job_and_log(client, session, code_dir):
    admin = await signed_in(client, session, "root@example.com", "admin")
    assert (await client.get("/api/security-scan", headers=admin)).status_code == 404
    started = await client.post("/api/security-scan/start", json={"scanType": "full"}, headers=admin)
    assert started.status_code == 202, started.text
    scan = started.json()
    assert (scan["scanType"], scan["status"], scan["totalFiles"]) == ("full", "running", 2)
    assert (await runner.wait_for(scan["jobId"])) == "done"
    done = (await client.get("/api/security-scan", headers=admin)).json()
    assert (done["status"], done["jobStatus"], done["filesScanned"], done["vulnerabilities"]) == ("complete", "done", 2, 2)
    job = (await client.get(f"/api/jobs/{scan['jobId']}", headers=admin)).json()
    assert job["kind"] == "scan" and job["status"] == "done" and job["result"]["findings"] == 2
    assert job["worker"] == runner.worker_id() and job["owner"] == "root@example.com"
    lines = (await client.get(f"/api/jobs/{scan['jobId']}/logs", headers=admin)).json()
    assert [line["seq"] for line in lines] == list(range(1, job["logSeq"] + 1))
    assert lines[-1]["level"] == "success" and lines[-1]["message"].startswith("Complete: 2 findings")
    later = (await client.get(f"/api/jobs/{scan['jobId']}/logs?after={job['logSeq'] - 1}", headers=admin)).json()
    assert later == lines[-1:]
    bad = await client.get(f"/api/jobs/{scan['jobId']}/logs?after=-1", headers=admin)
    assert bad.status_code == 400 and "sequence" in bad.json()["message"]


async def test_a_running_scan_is_stopped_through_its_job_and_a_second_start_conflicts(client, session, code_dir, held_scan):
    entered, release = held_scan
    admin = await signed_in(client, session, "root@example.com", "admin")
    scan = (await client.post("/api/security-scan/start", json={"scanType": "quick"}, headers=admin)).json()
    again = await client.post("/api/security-scan/start", json={"scanType": "full"}, headers=admin)
    assert again.status_code == 409 and again.json() == {"message": "A scan is already running"}
    assert await asyncio.to_thread(entered.wait, 30)  # running (a queued job would be stopped at once)
    stop = await client.post(f"/api/jobs/{scan['jobId']}/stop", headers=admin)
    assert stop.status_code == 200 and stop.json()["status"] == "stopping" and stop.json()["stopRequested"]
    release.set()
    assert await runner.wait_for(scan["jobId"]) == "stopped"
    view = (await client.get("/api/security-scan", headers=admin)).json()
    assert view["status"] == "stopped" and view["filesScanned"] < view["totalFiles"]
    finished = await client.post(f"/api/jobs/{scan['jobId']}/stop", headers=admin)
    assert finished.status_code == 409 and "already finished" in finished.json()["message"]
    assert (await client.post("/api/security-scan/stop", headers=admin)).status_code == 404


async def test_a_limited_user_reads_the_scan_but_may_not_start_or_stop_it(client, session, code_dir, held_scan):
    admin = await signed_in(client, session, "root@example.com", "admin")
    viewer = await signed_in(client, session, "viewer@example.com", "limited")
    assert (await client.post("/api/security-scan/start", json={"scanType": "quick"}, headers=viewer)).status_code == 403
    scan = (await client.post("/api/security-scan/start", json={"scanType": "quick"}, headers=admin)).json()
    assert (await client.get(f"/api/jobs/{scan['jobId']}", headers=viewer)).status_code == 200
    for path in (f"/api/jobs/{scan['jobId']}/stop", "/api/security-scan/stop"):
        response = await client.post(path, headers=viewer)
        assert response.status_code == 403, path
    assert (await client.get(f"/api/jobs/{scan['jobId']}", headers=admin)).json()["status"] in ("queued", "running")
    held_scan[1].set()
    await runner.wait_for(scan["jobId"])


async def test_hostile_input_gets_clear_errors(client, session):
    admin = await signed_in(client, session, "root@example.com", "admin")
    for body in ({"scanType": "deep"}, {"scanType": 1}, {}, {"scanType": "quick" * 1000}):
        response = await client.post("/api/security-scan/start", json=body, headers=admin)
        assert response.status_code == 400 and response.json()["message"], body
    for path in ("/api/jobs/0", "/api/jobs/99999999999", "/api/jobs/abc", "/api/jobs/424242"):
        response = await client.get(path, headers=admin)
        assert response.status_code in (400, 404) and "message" in response.json(), path


async def test_the_served_by_header_names_the_worker_only_when_asked(client, session, code_dir, settings, monkeypatch):
    admin = await signed_in(client, session, "root@example.com", "admin")
    scan = (await client.post("/api/security-scan/start", json={"scanType": "quick"}, headers=admin)).json()
    await runner.wait_for(scan["jobId"])
    assert "x-served-by" not in (await client.get(f"/api/jobs/{scan['jobId']}", headers=admin)).headers
    monkeypatch.setattr(settings, "SERVED_BY_HEADER", True)
    response = await client.get(f"/api/jobs/{scan['jobId']}", headers=admin)
    assert response.headers["x-served-by"] == runner.worker_id()


async def test_scripts_run_the_scan_under_api_scans(client, session, code_dir, held_scan):
    """POST /api/scans, GET /api/scans/current, POST /api/scans/current/stop: the same scan, roles and conflicts."""
    entered, release = held_scan
    for method, path in (("POST", "/api/scans"), ("GET", "/api/scans/current"), ("POST", "/api/scans/current/stop")):
        assert (await client.request(method, path, json={"scanType": "quick"})).status_code == 401, path
    admin = await signed_in(client, session, "root@example.com", "admin")
    viewer = await signed_in(client, session, "viewer@example.com", "limited")
    assert (await client.get("/api/scans/current", headers=admin)).status_code == 404
    assert (await client.post("/api/scans", json={"scanType": "deep"}, headers=admin)).status_code == 400
    assert (await client.post("/api/scans", json={"scanType": "quick"}, headers=viewer)).status_code == 403
    started = await client.post("/api/scans", json={"scanType": "quick"}, headers=admin)
    assert started.status_code == 202 and started.json()["scanType"] == "quick"
    again = await client.post("/api/scans", json={"scanType": "full"}, headers=admin)
    assert again.status_code == 409 and again.json() == {"message": "A scan is already running"}
    assert (await client.get("/api/scans/current", headers=viewer)).json()["jobId"] == started.json()["jobId"]
    assert await asyncio.to_thread(entered.wait, 30)
    assert (await client.post("/api/scans/current/stop", headers=viewer)).status_code == 403
    stop = await client.post("/api/scans/current/stop", headers=admin)
    assert stop.status_code == 200
    release.set()
    assert await runner.wait_for(started.json()["jobId"]) == "stopped"
    assert (await client.get("/api/scans/current", headers=admin)).json()["status"] == "stopped"
    assert (await client.post("/api/scans/current/stop", headers=admin)).status_code == 404
