"""A site's card shows what a user waits for: the total time over every redirect and the body, the time to first
byte, the redirects, TLS days to one decimal with the exact expiry on hover, and "expired" for an expired
certificate from an untrusted CA; at 1280 px and on a 390 px phone (screenshots in $SECDASH_SCREENSHOTS if set)."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from playwright.sync_api import Locator, Page, expect

from tests.e2e.helpers import sign_in, toast
from tests.support.probe_servers import Step, StepServer, UntrustedCA, chain, expiring_in, leaf_context

PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 900}


@pytest.fixture
def slow_site():
    """Two redirects of 0.3 s, then a page whose body trickles over 0.6 s: a user waits about 1.2 s."""
    with StepServer(chain(2, 0.3, Step(body=b"<h1>slow</h1>" + b" " * 20_000, trickle=0.6))) as server:
        yield server


@pytest.fixture
def expired_site(tmp_path):
    tls = leaf_context(UntrustedCA(tmp_path / "ca"), expiring_in(-2.5), "expired")
    with StepServer({"/": Step()}, tls=tls) as server:
        yield server


def _add(page: Page, name: str, url: str) -> None:
    page.get_by_role("button", name="Add site").click()
    page.get_by_label("Name").fill(name)
    page.get_by_label("URL (http or https)").fill(url)
    page.get_by_label(re.compile("Allow a private")).check()
    page.get_by_role("button", name="Save").click()
    expect(toast(page, "Site saved").first).to_contain_text("It is being probed now")


def _remove(page: Page, name: str) -> None:
    row = page.get_by_test_id("site-row").filter(has_text=name)
    row.get_by_role("button", name=re.compile("^Edit")).click()
    dialog = page.get_by_role("dialog")
    dialog.get_by_role("button", name="Remove", exact=True).click()
    dialog.get_by_role("button", name="Remove site").click()
    expect(row).to_have_count(0)


def _shoot(page: Page, name: str, *rows: Locator, full: bool = True) -> None:
    folder = os.environ.get("SECDASH_SCREENSHOTS")
    if folder:
        Path(folder).mkdir(parents=True, exist_ok=True)
        if full:
            page.screenshot(path=str(Path(folder) / f"{name}.png"), full_page=True)
        for number, row in enumerate(rows, 1):
            row.scroll_into_view_if_needed()
            row.screenshot(path=str(Path(folder) / f"{name}-card{number}.png"))


def _check(page: Page, slow_site: StepServer, expired_site: StepServer, width: int, label: str) -> None:
    sign_in(page)
    _add(page, f"Timing {label}", slow_site.base + "/hop1")
    _add(page, f"Expired {label}", expired_site.base + "/")
    slow = page.get_by_test_id("site-row").filter(has_text=f"Timing {label}")
    expect(slow).to_contain_text("SECURE", timeout=30000)
    expect(slow.get_by_test_id("site-timing")).to_contain_text(re.compile(r"First byte [\d,]+ ms · 2 redirects"))
    total = int(slow.get_by_test_id("site-response").inner_text().replace(",", "").removesuffix(" ms"))
    assert 1200 <= total < 5000, total
    expect(slow.get_by_test_id("site-tls")).to_have_text("n/a (http)")

    expired = page.get_by_test_id("site-row").filter(has_text=f"Expired {label}")
    expect(expired).to_contain_text("ALERT", timeout=30000)
    expect(expired).to_contain_text("TLS certificate expired")
    tls = expired.get_by_test_id("site-tls")
    expect(tls).to_have_text("expired")
    expect(tls).to_have_attribute("title", re.compile(r"^Expired 2\.5 days before the check \(\w{3} \d{2} \d{4}, "))
    expect(expired.get_by_test_id("site-timing")).to_contain_text("certificate expired")
    expect(expired.get_by_test_id("response-chart")).to_have_text("No response yet")
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    _shoot(page, f"probe-figures-{label}", slow, expired)
    chart = slow.get_by_test_id("response-chart")
    chart.scroll_into_view_if_needed()
    chart.hover()
    expect(slow.get_by_role("tooltip")).to_contain_text(re.compile(r"[\d,]+ ms\s*\(first byte [\d,]+ ms, 2 redirects\)"))
    _shoot(page, f"probe-figures-{label}-tooltip", slow, full=False)
    _remove(page, f"Timing {label}")
    _remove(page, f"Expired {label}")


@pytest.mark.browser_context_args(viewport=DESKTOP)
def test_the_card_shows_the_probes_figures_at_1280_px(page: Page, slow_site, expired_site):
    _check(page, slow_site, expired_site, DESKTOP["width"], "desktop")


@pytest.mark.browser_context_args(viewport=PHONE, is_mobile=True, has_touch=True)
def test_the_card_shows_the_probes_figures_on_a_phone(page: Page, slow_site, expired_site):
    _check(page, slow_site, expired_site, PHONE["width"], "phone")
