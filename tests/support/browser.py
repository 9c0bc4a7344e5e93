"""Browser-test fixtures (a pytest plugin, registered by tests/conftest.py): a real SecDash server
(reflex prod, single port) on a free port, driven by Debian's Chromium. Used by tests/e2e and
tests/security/browser; one server per test session."""

from __future__ import annotations

import os
import secrets

import pytest
from playwright.sync_api import expect

from tests.support.fake_openai import FakeOpenAI
from tests.support.live_server import run_cli, server_env, start_server
from tests.support.web_servers import STRONG_HEADERS, LocalSite

ADMIN_EMAIL = "admin@e2e.test"
ADMIN_PASSWORD = "e2e-admin-password-" + secrets.token_hex(4)
LIMITED_EMAIL = "viewer@e2e.test"
LIMITED_PASSWORD = "e2e-viewer-password-" + secrets.token_hex(4)
# A limited user whose 60-character e-mail must fit the navigation bar at 1280 px.
LONG_EMAIL = "security.operations.night-shift.lead@long-addresses.e2e.test"
LONG_PASSWORD = "e2e-long-password-" + secrets.token_hex(4)
STARTUP_TIMEOUT = float(os.environ.get("SECDASH_E2E_STARTUP_TIMEOUT", "600"))
# How long an expectation waits for the page (Playwright's default is 5 s). `make test` runs the browser tests beside
# the in-process tests on a 2-core machine: a page that answers in 1 s alone can take several under that load. A
# passing expectation returns as soon as it holds, so only a failing one waits this long.
EXPECT_TIMEOUT_MS = 15_000
expect.set_options(timeout=EXPECT_TIMEOUT_MS)


# SECDASH_E2E_LLM=fake: the server talks to a local OpenAI-compatible test server instead of the offline engine.
MODEL_MODE = os.environ.get("SECDASH_E2E_LLM") == "fake"


@pytest.fixture(scope="session")
def fake_model():
    if not MODEL_MODE:
        yield None
        return
    server = FakeOpenAI()
    yield server
    server.close()


def _e2e_env(data_dir, fake_model) -> dict[str, str]:
    overrides = {
        "SECDASH_SECRET_KEY": secrets.token_urlsafe(48),
        "SECDASH_ADMIN_EMAIL": ADMIN_EMAIL,
        "SECDASH_ADMIN_PASSWORD": ADMIN_PASSWORD,
        "SECDASH_MONITOR_INTERVAL": "2",
        # Every browser test opens pages from 127.0.0.1: a whole suite is far more than one person's
        # 120 new live connections a minute (the cap itself is tested in tests/security).
        "SECDASH_WS_CONNECTS_PER_MINUTE": "5000",
        # No test depends on the clock: Shares stays up (its outage is tested where it is set), and a scan pauses
        # after each file, so a running scan can always be seen and stopped before it ends.
        "SECDASH_DEMO_SHARES_OUTAGE": "up",
        "SECDASH_THREAT_SIMULATION": "off",  # no drill starts at random under a browser test
        "SECDASH_TRAFFIC_SIMULATION": "on",  # the labelled simulated figures are shown (and checked) on request
        "SECDASH_SCAN_PAUSE_MS": "300",
        "SECDASH_SERVED_BY_HEADER": "1",
    }
    if fake_model is not None:
        overrides |= {"SECDASH_LLM_BASE_URL": fake_model.base_url, "SECDASH_LLM_MODEL": "echo", "SECDASH_LLM_API_KEY": "sk-e2e"}
    if os.environ.get("SECDASH_E2E_DATABASE_URL"):
        overrides["SECDASH_DATABASE_URL"] = os.environ["SECDASH_E2E_DATABASE_URL"]
    if os.environ.get("SECDASH_E2E_REDIS_URL"):
        overrides["REFLEX_REDIS_URL"] = os.environ["SECDASH_E2E_REDIS_URL"]
        overrides["GRANIAN_WORKERS"] = os.environ.get("SECDASH_E2E_WORKERS", "2")
    return server_env(data_dir, **overrides)


SERVER_ENV: dict[str, str] = {}  # the running server's environment (to run a helper against its database)


@pytest.fixture(scope="session")
def server(tmp_path_factory, fake_model):
    """Seed the admin and a limited user through the CLI, start the server, stop it at the end."""
    data_dir = tmp_path_factory.mktemp("e2e-data")
    env = _e2e_env(data_dir, fake_model)
    SERVER_ENV.update(env)
    run_cli(env, "init")
    run_cli(env, "users", "create", LIMITED_EMAIL, "--role", "limited", stdin=f"{LIMITED_PASSWORD}\n")
    run_cli(env, "users", "create", LONG_EMAIL, "--role", "limited", stdin=f"{LONG_PASSWORD}\n")
    try:
        live = start_server(env, data_dir, timeout=STARTUP_TIMEOUT)
    except RuntimeError as exc:
        pytest.fail(str(exc))
    try:
        yield live.base_url
    finally:
        log_text = live.stop()
    assert "Traceback (most recent call last)" not in log_text, f"the server logged an error:\n{log_text[-6000:]}"


@pytest.fixture
def site_server():
    """A small local website with good security headers that a test can take down."""
    server = LocalSite({"/": (200, STRONG_HEADERS, b"<h1>test site</h1>", 0.0)})
    yield server
    server.close()
