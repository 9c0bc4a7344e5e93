"""Importing sites from a file in the browser (issue 26): the dialog checks each row first and names the refusals,
then imports the good rows, which show on the Dashboard."""

from __future__ import annotations

import os
import re
from pathlib import Path

import httpx
import pytest
from playwright.sync_api import Page, expect

from tests.e2e.helpers import assert_accessible, sign_in, toast
from tests.support.browser import ADMIN_EMAIL, ADMIN_PASSWORD

SHOTS = os.environ.get("SECDASH_E2E_SCREENSHOTS", "")
NAMES = ("Import e2e A", "Import e2e B", "Import e2e C")


def _admin(base_url: str) -> dict[str, str]:
    login = httpx.post(f"{base_url}/api/auth/login", json={"email": ADMIN_EMAIL, "password": ADMIN_PASSWORD})
    return {"Authorization": f"Bearer {login.json()['token']}"}


@pytest.fixture
def removes_imported(base_url: str):
    """The sites the test imports are removed afterwards (through the API): later tests see the demo sites only."""
    yield
    headers = _admin(base_url)
    ids = [site["id"] for site in httpx.get(f"{base_url}/api/sites", headers=headers).json() if site["name"] in NAMES]
    if ids:
        assert httpx.post(f"{base_url}/api/sites/delete", json={"ids": ids}, headers=headers).status_code == 200


def test_an_admin_previews_a_file_with_bad_rows_and_imports_the_good_ones(page: Page, base_url: str, removes_imported):
    stock = next(site for site in httpx.get(f"{base_url}/api/sites", headers=_admin(base_url)).json() if site["name"] == "Stock")
    csv = (
        "name,url,allowPrivate,tags\n"
        f"{NAMES[0]},{base_url}/demo/tour/?import=a,true,e2e;import\n"
        "Bad address,ftp://files.example/,,\n"
        f"{NAMES[1]},{base_url}/demo/tour/?import=b,true,e2e\n"
        f"Stock again,{stock['url']},true,\n"
        f"{NAMES[2]},{base_url}/demo/gem/?import=c,true,\n"
    )
    sign_in(page)
    if SHOTS:
        page.screenshot(path=str(Path(SHOTS) / "site-import-button-1280.png"))
    page.get_by_role("button", name="Import / export").click()
    dialog = page.get_by_role("dialog", name="Import / export sites")
    expect(dialog).to_be_visible()
    too_large = b"name,url\n" + b"x" * (2 * 1024 * 1024)
    dialog.locator("input[type=file]").set_input_files(files=[{"name": "big.csv", "mimeType": "text/csv", "buffer": too_large}])
    expect(toast(page, "Not imported")).to_contain_text("larger than 2 MB")
    with page.expect_file_chooser() as chooser:  # the drop zone works from the keyboard
        dialog.get_by_test_id("site-import-upload").focus()
        page.keyboard.press("Enter")
    chooser.value.set_files(files=[{"name": "sites.csv", "mimeType": "text/csv", "buffer": csv.encode()}])
    expect(dialog.get_by_test_id("site-import-summary")).to_contain_text("3 sites ready to import, 2 refused", timeout=20000)
    rows = dialog.get_by_test_id("site-import-row")
    expect(rows.filter(has_text="Bad address")).to_contain_text("url: only http and https URLs can be monitored")
    expect(rows.filter(has_text="Stock again")).to_contain_text("already monitored as Stock")
    expect(rows.filter(has=page.get_by_text("Ready", exact=True))).to_have_count(3)
    expect(rows.first).to_contain_text("Import e2e A")  # in the file's order
    assert_accessible(page, "the import dialog's report")
    if SHOTS:
        for width in (1280, 390):
            page.set_viewport_size({"width": width, "height": 900})
            page.screenshot(path=str(Path(SHOTS) / f"site-import-{width}.png"))
        page.set_viewport_size({"width": 1280, "height": 900})

    dialog.get_by_role("button", name="Import 3 sites").click()
    expect(toast(page, "Sites imported: 3 added, 2 refused")).to_be_visible(timeout=20000)
    expect(rows.filter(has=page.get_by_text("Added", exact=True))).to_have_count(3)
    expect(dialog.get_by_role("button", name="Imported")).to_be_disabled()
    with page.expect_download() as download:
        dialog.get_by_role("button", name="Export CSV").click()
    exported = Path(download.value.path()).read_text(encoding="utf-8")
    assert exported.startswith("name,url,allowPrivate,tags,capacityRpm,signupRoute") and f"{NAMES[0]}," in exported
    page.keyboard.press("Escape")
    expect(dialog).to_have_count(0)
    sites = page.get_by_test_id("site-row")
    for name in NAMES:
        expect(sites.filter(has_text=re.compile(f"^{name}"))).to_have_count(1)
