"""The Import / export dialog's state (handlers called directly): a preview keeps the file for Import, a file that
cannot be read leaves the previous preview as it was, a limited user is refused by the service, and the report lists
the rows in the file's order with every refused one."""

from __future__ import annotations

import io

import reflex as rx
from sqlmodel import select

import secdash.secdash  # noqa: F401
from secdash.models import Site
from secdash.services.monitoring import sites
from secdash.services.monitoring.site_import import ImportReport, RowResult
from secdash.state import site_import as state_module
from secdash.state.site_import import SiteImportState
from tests.factories import make_user, sign_in

GOOD_AND_BAD = b"name,url\nA,https://a.example/\nB,ftp://b.example/\n"


async def _state(session, role: str) -> SiteImportState:
    await make_user(session, "ops@example.com", role=role)
    root = rx.State(_reflex_internal_init=True)
    state = root.get_substate(SiteImportState.get_full_name().split("."))
    state.auth_token = await sign_in(session, "ops@example.com")
    return state


async def _run(handler: str, state: SiteImportState, *args) -> list:
    return [item async for item in SiteImportState.event_handlers[handler].fn(state, *args)]


def _upload(data: bytes) -> rx.UploadFile:
    return rx.UploadFile(file=io.BytesIO(data), size=len(data))


async def test_preview_then_import_and_a_bad_file_keeps_the_preview(session, monkeypatch):
    async def resolve(host: str, port: int) -> list[str]:
        return ["93.184.215.14"]

    monkeypatch.setattr(sites, "resolve", resolve)
    state = await _state(session, "admin")
    await _run("preview", state, [_upload(GOOD_AND_BAD)])
    assert (state.ready, state.refused, state.imported, state.working) == (1, 1, False, "")
    assert [(row.row, row.label) for row in state.rows] == [(2, "Ready"), (3, "Refused")]
    assert state.rows[1].reason == "url: only http and https URLs can be monitored"

    refused = await _run("preview", state, [_upload(b"\xff\xfe not text")])
    assert "cannot be imported" in str(refused) and state.ready == 1  # the previous preview stays

    await _run("import_sites", state)
    assert state.imported and state.summary == "Sites imported: 1 added, 1 refused" and state.rows[0].label == "Added"
    assert [site.name for site in await session.exec(select(Site))] == ["A"]
    assert await _run("import_sites", state) == []  # once


async def test_a_limited_user_is_refused_by_the_service(session):
    state = await _state(session, "limited")
    out = await _run("preview", state, [_upload(GOOD_AND_BAD)])
    assert "Only administrators may import sites" in str(out) and state.summary == ""
    exported = await SiteImportState.event_handlers["export"].fn(state, "csv")
    assert "Only administrators may export sites" in str(exported)


def test_the_report_lists_every_refused_row_and_the_first_good_ones_in_order():
    rows = [RowResult(n, f"s{n}", "", "refused" if n % 3 == 0 else "ready", "why" if n % 3 == 0 else None) for n in range(2, 400)]
    shown, hidden = state_module.shown_rows(ImportReport(True, rows))
    assert [row.row for row in shown] == sorted(row.row for row in shown)
    assert sum(row.result == "ready" for row in shown) == state_module.SHOWN_ACCEPTED
    assert sum(row.result == "refused" for row in shown) == min(
        sum(row.result == "refused" for row in rows), state_module.SHOWN_REFUSED
    )
    assert hidden == len(rows) - len(shown)


async def test_a_large_export_is_fetched_from_the_api_not_sent_through_the_websocket(session, monkeypatch):
    state = await _state(session, "admin")
    session.add_all([Site(name=f"s{i}", url=f"https://s{i}.example/" + "p" * 100, domain=f"s{i}.example") for i in range(20)])
    await session.commit()
    small = await SiteImportState.event_handlers["export"].fn(state, "json")
    assert "data:" in str(small[0]) or "s19.example" in str(small[0])
    monkeypatch.setattr(state_module, "MAX_EVENT_DOWNLOAD_BYTES", 1000)
    large = await SiteImportState.event_handlers["export"].fn(state, "csv")
    assert "/api/sites/export?format=csv" in str(large[0]) and "s19.example" not in str(large[0])
