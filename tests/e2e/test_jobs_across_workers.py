"""A scan started on one worker is stopped from another (the real server; in CI with 2 workers, Redis and
PostgreSQL). Each new connection may land on either worker; `X-Served-By` (SECDASH_SERVED_BY_HEADER) says which."""

from __future__ import annotations

import os
import time

import httpx

from tests.support.browser import ADMIN_EMAIL, ADMIN_PASSWORD

SEVERAL_WORKERS = bool(os.environ.get("SECDASH_E2E_REDIS_URL")) and os.environ.get("SECDASH_E2E_WORKERS", "2") != "1"


def _wait_for(client: httpx.Client, job_id: int, statuses: set[str], timeout: float = 60.0) -> dict:
    deadline = time.monotonic() + timeout
    while True:
        job = client.get(f"/api/jobs/{job_id}").json()
        if job["status"] in statuses or time.monotonic() > deadline:
            return job
        time.sleep(0.05)


def test_a_scan_started_on_one_worker_is_stopped_from_the_other(server: str):
    login = httpx.post(f"{server}/api/auth/login", json={"email": ADMIN_EMAIL, "password": ADMIN_PASSWORD})
    headers = {"Authorization": f"Bearer {login.json()['token']}"}
    with httpx.Client(base_url=server, headers=headers, timeout=30) as client:
        current = client.get("/api/security-scan")
        if current.status_code == 200 and current.json()["status"] == "running":  # another test's scan: end it
            client.post("/api/security-scan/stop")
            _wait_for(client, current.json()["jobId"], {"stopped", "done", "failed", "interrupted"})
        started = client.post("/api/security-scan/start", json={"scanType": "full"})
        assert started.status_code == 202, started.text
        job_id = started.json()["jobId"]
        job = _wait_for(client, job_id, {"running"})
        assert job["status"] == "running", job
        runner_worker = job["worker"]

    # New connections until one is answered by a worker other than the one running the scan.
    stopper = None
    for _ in range(200):
        candidate = httpx.Client(base_url=server, headers=headers, timeout=30)
        seen = candidate.get(f"/api/jobs/{job_id}").headers["x-served-by"]
        if seen != runner_worker or not SEVERAL_WORKERS:
            stopper = candidate
            break
        candidate.close()
    assert stopper is not None, "every connection reached the worker running the scan"
    try:
        stop = stopper.post(f"/api/jobs/{job_id}/stop")  # the same connection: the same worker
        assert stop.status_code == 200, stop.text
        if SEVERAL_WORKERS:
            assert stop.headers["x-served-by"] != runner_worker
        assert stop.json()["status"] == "stopping"
        job = _wait_for(stopper, job_id, {"stopped", "done", "failed", "interrupted"})
    finally:
        stopper.close()
    assert job["status"] == "stopped" and job["worker"] == runner_worker
    assert job["progress"]["filesScanned"] < job["progress"]["totalFiles"]
