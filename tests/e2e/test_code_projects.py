"""Live Code Builder: the user's projects and saved snapshots are listed (name, status, files, snapshots, updated)
and can be opened, renamed and deleted, at 1280 px and on a 390 px phone.

SECDASH_E2E_SCREENSHOTS=<folder> keeps screenshots (to look at)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest
from playwright.sync_api import Page, expect

from tests.e2e.helpers import sign_in, toast
from tests.support.browser import LONG_EMAIL, LONG_PASSWORD, SERVER_ENV
from tests.support.live_server import PROJECT_ROOT

SHOTS = os.environ.get("SECDASH_E2E_SCREENSHOTS", "")
FILES = {"index.html": "<!doctype html><title>Bean There</title><h1>Bean There</h1>", "style.css": "h1 { color: brown; }"}


def _shot(page: Page, name: str) -> None:
    if SHOTS:
        Path(SHOTS).mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(Path(SHOTS) / f"{name}.png"), full_page=True)


def _plant(name: str) -> int:
    done = subprocess.run(
        [sys.executable, "-m", "tests.support.plant_project", LONG_EMAIL, name],
        input=json.dumps(FILES),
        text=True,
        capture_output=True,
        check=True,
        cwd=PROJECT_ROOT,
        env=SERVER_ENV,
    )
    return int(done.stdout.strip())


@contextmanager
def _api(base_url: str) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=base_url, timeout=30) as client:
        login = client.post("/api/auth/login", json={"email": LONG_EMAIL, "password": LONG_PASSWORD})
        client.headers["Authorization"] = f"Bearer {login.json()['token']}"
        yield client


@pytest.mark.parametrize("width", [1280, 390], ids=["desktop", "phone"])
def test_projects_and_snapshots_are_listed_opened_renamed_and_deleted(page: Page, base_url: str, width: int):
    name = f"Bean There {width}"
    project_id = _plant(name)
    with _api(base_url) as api:
        saved = api.post("/api/code-project/save", json={"projectId": project_id})
        assert saved.status_code == 201, saved.text
        snapshot_id = saved.json()["id"]
        assert api.post("/api/code-project/new").status_code == 204  # nothing is open any more

    page.set_viewport_size({"width": width, "height": 900 if width > 400 else 844})
    sign_in(page, LONG_EMAIL, LONG_PASSWORD)
    page.goto("/code-mode")
    expect(page.get_by_test_id("builder-send")).to_have_text("Build")  # no current project
    listing = page.get_by_role("region", name="Your projects")
    row = listing.get_by_test_id("project-item").filter(has=page.get_by_text(name, exact=True))
    expect(row).to_have_count(1)
    expect(row).to_contain_text("COMPLETE")
    expect(row).to_contain_text("2 files")
    expect(row).to_contain_text("1 saved snapshot")
    expect(row).to_contain_text(re.compile(r"Updated \d{4}-\d{2}-\d{2} \d{2}:\d{2}"))
    snapshot = listing.get_by_test_id("project-item").filter(has_text=f"Snapshot of #{project_id}")
    expect(snapshot).to_have_count(1)
    expect(snapshot).to_contain_text(f"{name} (saved")
    width_now = page.evaluate("document.documentElement.scrollWidth")
    assert width_now <= width, f"/code-mode is {width_now} px wide at {width} px"
    _shot(page, f"code-projects-{width}")

    # Open: it becomes the current project (Continue, its files).
    row.get_by_role("button", name=f"Open {name}").click()
    expect(toast(page, "Project Opened")).to_be_visible()
    expect(page.get_by_test_id("builder-send")).to_have_text("Continue")
    expect(page.get_by_test_id("file-row")).to_have_count(2)
    expect(row).to_contain_text("Open now")

    # Rename, with the keyboard: Enter keeps the new name.
    row.get_by_role("button", name=f"Rename {name}").click()
    box = listing.get_by_role("textbox", name=f"New name for {name}")
    expect(box).to_be_focused()
    box.fill(f"{name} v2")
    box.press("Enter")
    renamed = listing.get_by_test_id("project-item").filter(has=page.get_by_text(f"{name} v2", exact=True))
    expect(renamed).to_have_count(1)
    expect(page.get_by_test_id("project-name")).to_have_text(f"{name} v2")  # the open project's card too
    expect(renamed.get_by_role("button", name=f"Rename {name} v2")).to_be_focused()  # the keyboard goes on from there
    with _api(base_url) as api:
        assert api.get(f"/api/code-project/{project_id}").json()["name"] == f"{name} v2"

    # Delete the snapshot, after a confirmation (Cancel leaves it); the project itself stays.
    delete = snapshot.get_by_role("button", name=re.compile("^Delete "))
    delete.click()
    snapshot.get_by_role("button", name="Cancel").click()
    expect(snapshot.get_by_role("button", name="Confirm delete")).to_have_count(0)
    expect(delete).to_be_focused()
    delete.click()
    snapshot.get_by_role("button", name="Confirm delete").click()
    expect(toast(page, "Project Deleted")).to_be_visible()
    expect(listing.get_by_test_id("project-item").filter(has_text=f"Snapshot of #{project_id}")).to_have_count(0)
    expect(renamed).to_contain_text("0 saved snapshots")
    expect(page.locator("#your-projects")).to_be_focused()  # the deleted row took its buttons along
    with _api(base_url) as api:
        assert api.get(f"/api/code-project/{snapshot_id}").status_code == 404
    _shot(page, f"code-projects-after-{width}")

    # Deleting the open project closes it.
    renamed.get_by_role("button", name=re.compile("^Delete ")).click()
    renamed.get_by_role("button", name="Confirm delete").click()
    expect(renamed).to_have_count(0)
    expect(page.get_by_test_id("builder-send")).to_have_text("Build")
