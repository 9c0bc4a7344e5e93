"""What a limited user may not do, whichever door they use (service, API, UI handler)."""

from __future__ import annotations

import pytest
import reflex as rx

import secdash.secdash  # noqa: F401
from secdash.jobs import runner
from secdash.services.errors import PermissionDenied
from secdash.services.scanning import scans
from secdash.state.dashboard import ScanTab
from tests.factories import make_user, sign_in


async def test_a_limited_user_cannot_start_a_scan(session):
    viewer = await make_user(session, "viewer@example.com", role="limited")
    with pytest.raises(PermissionDenied, match="Only administrators may start scans"):
        await scans.start_scan(session=session, actor=viewer, scan_type="quick")
    assert await scans.current_job(session=session) is None


async def test_a_limited_user_cannot_stop_an_admins_scan(session):
    admin = await make_user(session, "admin@example.com", role="admin")
    viewer = await make_user(session, "viewer@example.com", role="limited")
    job = await scans.start_scan(session=session, actor=admin, scan_type="full")
    with pytest.raises(PermissionDenied, match="Only administrators may stop scans"):
        await scans.stop_scan(session=session, actor=viewer)
    session.expire_all()
    assert (await scans.current_job(session=session)).stop_requested is False
    await scans.stop_scan(session=session, actor=admin)
    await runner.wait_for(job.id)


async def test_the_dashboard_handler_refuses_a_limited_users_scan_with_a_toast(session):
    await make_user(session, "viewer@example.com", role="limited")
    root = rx.State(_reflex_internal_init=True)
    state = root.get_substate(ScanTab.get_full_name().split("."))
    state.auth_token = await sign_in(session, "viewer@example.com")
    event = await ScanTab.event_handlers["start_scan"].fn(state, "quick")
    assert "Only administrators may start scans" in str(event)
    assert state.scan_status == "idle"
    assert await scans.current_job(session=session) is None
