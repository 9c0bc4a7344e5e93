"""A worker killed with SIGKILL is replaced, the server keeps answering, and the job it was running is marked
interrupted by the reaper (the real server; in CI with 2 workers, Redis and PostgreSQL: .ci/run).

granian starts the replacement (respawn_failed_workers, turned on by secdash/core/respawn.py from rxconfig.py).
Each new connection may land on either worker; `X-Served-By` (SECDASH_SERVED_BY_HEADER) says which one, as host:pid.
"""

from __future__ import annotations

import os
import signal
import socket
import time

import httpx
import pytest

from tests.support.browser import ADMIN_EMAIL, ADMIN_PASSWORD

SEVERAL_WORKERS = bool(os.environ.get("SECDASH_E2E_REDIS_URL")) and os.environ.get("SECDASH_E2E_WORKERS", "2") != "1"
# The reaper: a job silent for 60 s (runner.STALE_AFTER), looked for every 15 s, by a leader whose lease (15 s) may
# have been the killed worker's. Beyond that, a margin for a loaded CI machine.
REAPED_WITHIN = 60 + 15 + 15 + 30


def _job(client: httpx.Client, job_id: int) -> httpx.Response:
    return client.get(f"/api/jobs/{job_id}")


@pytest.mark.skipif(not SEVERAL_WORKERS, reason="kills a worker: run against several workers (CI's 2-worker run)")
def test_a_killed_worker_is_replaced_and_its_job_interrupted(server: str):
    login = httpx.post(f"{server}/api/auth/login", json={"email": ADMIN_EMAIL, "password": ADMIN_PASSWORD})
    headers = {"Authorization": f"Bearer {login.json()['token']}"}
    with httpx.Client(base_url=server, headers=headers, timeout=30) as client:
        current = client.get("/api/security-scan")
        if current.status_code == 200 and current.json()["status"] == "running":  # another test's scan: end it
            client.post("/api/security-scan/stop")
        deadline = time.monotonic() + 60
        while (started := client.post("/api/security-scan/start", json={"scanType": "full"})).status_code == 409:
            assert time.monotonic() < deadline, started.text
            time.sleep(0.5)
        assert started.status_code == 202, started.text
        job_id = started.json()["jobId"]
        deadline = time.monotonic() + 60
        while (job := _job(client, job_id).json())["status"] != "running":
            assert time.monotonic() < deadline, job
            time.sleep(0.05)
    victim = job["worker"]
    host, pid = victim.rsplit(":", 1)
    assert host == socket.gethostname()[:40], f"the job runs on another machine: {victim}"

    # The workers serving before the kill (new connections spread over them).
    before: set[str] = set()
    for _ in range(60):
        with httpx.Client(base_url=server, headers=headers, timeout=30) as client:
            before.add(_job(client, job_id).headers["x-served-by"])
        if len(before) >= 2:
            break
    assert victim in before

    os.kill(int(pid), signal.SIGKILL)
    killed_at = time.monotonic()
    answered, failed, replacement = 0, 0, None
    while replacement is None and time.monotonic() - killed_at < 60:
        try:
            with httpx.Client(base_url=server, headers=headers, timeout=10) as client:
                response = _job(client, job_id)
            assert response.status_code == 200, response.text
            answered += 1
            served_by = response.headers["x-served-by"]
            if served_by not in before:
                replacement = served_by
        except httpx.TransportError:  # a connection accepted by the dying worker; the next one goes elsewhere
            failed += 1
        time.sleep(0.05)
    assert replacement is not None, f"no replacement worker within 60 s (answered {answered}, failed {failed})"
    assert answered >= 1 and failed <= 3, (answered, failed)

    # The killed worker's job: the reaper marks it interrupted (its heartbeat stopped with the worker).
    with httpx.Client(base_url=server, headers=headers, timeout=30) as client:
        while (job := _job(client, job_id).json())["status"] in ("running", "stopping"):
            assert time.monotonic() - killed_at < REAPED_WITHIN, job
            time.sleep(1)
        assert job["status"] == "interrupted", job
        assert victim in (job.get("error") or ""), job
        scan = client.get("/api/security-scan").json()
        assert scan["status"] != "running", scan
    print(f"replacement {replacement} after the kill; job {job_id} interrupted {time.monotonic() - killed_at:.0f} s after it")
