"""`python -m secdash probe URL [--allow-private]`: one JSON object, the monitor's address rules."""

from __future__ import annotations

import json
import subprocess
import sys

from secdash.core.config import PROJECT_ROOT
from tests.support.probe_servers import Step, StepServer, chain

KEYS = {
    "url",
    "finalUrl",
    "status",
    "ttfbMs",
    "totalMs",
    "redirects",
    "tlsDaysLeft",
    "tlsExpiresAt",
    "error",
    "grade",
    "score",
    "findings",
    "siteStatus",
    "checkedAt",
}


def _cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "secdash", "probe", *args], cwd=PROJECT_ROOT, capture_output=True, text=True, timeout=60
    )


def test_probe_prints_one_json_object_with_the_times_redirects_and_grade():
    with StepServer(chain(2, 0.2, Step(body=b"y" * 5000, trickle=0.3))) as server:
        done = _cli(server.base + "/hop1", "--allow-private")
    assert done.returncode == 0, done.stderr
    assert done.stdout.count("\n") == 1
    report = json.loads(done.stdout)
    assert set(report) >= KEYS
    assert report["status"] == 200 and report["redirects"] == 2 and report["error"] is None
    assert report["ttfbMs"] >= 400 and report["totalMs"] >= report["ttfbMs"] + 250
    assert isinstance(report["ttfbMs"], int) and isinstance(report["totalMs"], int)
    assert report["tlsDaysLeft"] is None and report["tlsExpiresAt"] is None
    # the header grade of the final answer (its rules are tested with the grader)
    assert isinstance(report["grade"], str) and isinstance(report["score"], int)
    assert report["siteStatus"] in ("secure", "warning") and isinstance(report["findings"], list)
    assert [hop["status"] for hop in report["hops"]] == [302, 302, 200]
    assert report["finalUrl"] == server.base + "/final"


def test_private_addresses_are_refused_without_allow_private():
    with StepServer({"/": Step()}) as server:
        done = _cli(server.base + "/")
    assert done.returncode == 1
    report = json.loads(done.stdout)
    assert report["error"] == "Blocked: private address 127.0.0.1" and report["status"] is None
    assert report["siteStatus"] == "critical" and report["grade"] is None


def test_a_url_that_cannot_be_probed_is_an_error_in_the_json():
    done = _cli("ftp://example.com/")
    assert done.returncode == 1
    assert json.loads(done.stdout)["error"] == "Blocked: only http and https URLs can be monitored"


def test_the_probe_engine_needs_no_reflex_and_no_database():
    code = (
        "import sys, secdash.services.probe, secdash.services.probe.cli; "
        "print(sorted(m for m in ('reflex', 'sqlalchemy', 'sqlmodel', 'fastapi', 'alembic') if m in sys.modules))"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=PROJECT_ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"
