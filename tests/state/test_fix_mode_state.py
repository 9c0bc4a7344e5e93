"""Fix Mode state: the open problems by site under validated filters; an admin proposes, applies and sees the fix
verified (toasted once, with its log and diff rows); a limited user reads everything and gets the server's
refusal for every change; a signed-out tab changes nothing; the server's Conflict is a toast."""

from __future__ import annotations

import shutil

import pytest
import reflex as rx
from sqlmodel import select

import secdash.secdash  # noqa: F401  (registers every page and state)
from secdash.jobs import runner
from secdash.models import Site
from secdash.models.fixes import Fix
from secdash.services.monitoring import sites
from secdash.services.scanning import code_roots, scans
from secdash.state.fix_mode import FixModeState
from tests.factories import make_user, sign_in

DEMO_EVAL = "gem/appraise.js"


@pytest.fixture
def code_dir(tmp_path, settings, monkeypatch):
    root = tmp_path / "sources"
    shutil.copytree(code_roots.DEMO_SOURCES, root)
    monkeypatch.setattr(settings, "SCAN_PATHS", str(root))
    yield root
    shutil.rmtree(code_roots.workspace_for(root), ignore_errors=True)


def _state(token: str = "") -> FixModeState:
    root = rx.State(_reflex_internal_init=True)
    state = root.get_substate(FixModeState.get_full_name().split("."))
    state.auth_token = token
    return state


async def _call(state: FixModeState, name: str, **kwargs):
    return await FixModeState.event_handlers[name].fn(state, **kwargs)


async def _full_scan(session, admin) -> None:
    job = await scans.start_scan(session=session, actor=admin, scan_type="full")
    await runner.wait_for(job.id, timeout=120)
    session.expire_all()


def _rows(state: FixModeState):
    return [row for group in state.groups for row in group.problems]


def _eval_row(state: FixModeState):
    return next(row for row in _rows(state) if row.location.startswith(f"{DEMO_EVAL}:") and row.rule == "js:eval")


async def _settle(session, fix_id: int) -> None:
    row = (await session.exec(select(Fix).where(Fix.id == fix_id).execution_options(populate_existing=True))).one()
    await runner.wait_for(row.job_id, timeout=60)


def _titles(events) -> list[str]:
    """The titles of the toasts among a handler's events."""
    listed = events if isinstance(events, list) else [events]
    return [str(value._var_value) for event in listed for name, value in getattr(event, "args", ()) if str(name) == "title"]


async def _fixes(session) -> list[Fix]:
    return list((await session.exec(select(Fix).execution_options(populate_existing=True))).all())


async def test_an_admin_proposes_applies_and_sees_the_fix_verified(session, code_dir):
    admin = await make_user(session, "root@example.com", role="admin")
    await _full_scan(session, admin)
    state = _state(await sign_in(session, "root@example.com"))
    assert await _call(state, "load") == FixModeState.follow_changes
    assert not state.loading and state.problem_count == len(_rows(state)) > 0
    assert [group.site for group in state.groups]  # grouped by site, each once
    assert len({group.site for group in state.groups}) == len(state.groups)
    row = _eval_row(state)
    assert row.state == "open" and row.recipe and "eval(" in row.snippet and not row.busy

    requested = await _call(state, "propose", problem_id=row.problem_id)
    assert "Fix requested" in str(requested)
    assert state.has_fix and state.fix.problem_id == row.problem_id and state.selected_problem == row.problem_id
    fix_id = state.fix.id
    await _settle(session, fix_id)
    events = await _call(state, "select_problem", problem_id=row.problem_id)
    # the step this tab watched ended: toasted once, by the read that first saw it (the propose's own read
    # when the recipe was written before it)
    assert [*_titles(requested), *_titles(events)].count("Fix proposed") == 1
    assert state.fix.status == "proposed" and state.fix.can_apply and state.fix.can_reject and not state.fix.can_revert
    assert state.fix.patch_url == f"/api/fixes/{fix_id}/patch"
    assert any(r.kind in ("removed", "changed") and "eval(" in r.old_text for r in state.diff_rows)
    assert any(r.kind in ("added", "changed") and "(carats * 1200 + clarity * 300)" in r.new_text for r in state.diff_rows)
    assert any("Fix proposed" in line.message for line in state.log)
    assert _eval_row(state).busy and not state.can_propose

    again = await _call(state, "propose", problem_id=row.problem_id)  # the server's Conflict, as a toast
    assert "already has fix" in str(again) and len(await _fixes(session)) == 1

    applied = await _call(state, "apply_fix")
    assert "Fix applied" in str(applied)
    await _settle(session, fix_id)
    events = [*applied, *await _call(state, "select_fix", fix_id=fix_id)]
    assert state.fix.status == "verified" and state.fix.checked and state.fix.fixed and state.fix.can_revert
    assert state.still_seen == [] and state.new_findings == []
    assert row.problem_id not in {r.problem_id for r in _rows(state)}  # a verified fix closes its problem
    assert [r.status for r in state.recent] == ["verified"]
    assert _titles(events).count("Fix verified") == 1
    assert "Fix verified" not in str(await _call(state, "select_fix", fix_id=fix_id))  # toasted once

    events = await _call(state, "revert_fix")
    assert "Fix reverted" in str(events) and state.fix.status == "reverted"
    assert _eval_row(state).state == "reverted" and not _eval_row(state).busy


async def test_a_limited_user_reads_everything_but_cannot_propose_apply_reject_or_revert(session, code_dir):
    admin = await make_user(session, "root@example.com", role="admin")
    await make_user(session, "viewer@example.com", role="limited")
    await _full_scan(session, admin)
    admin_state = _state(await sign_in(session, "root@example.com"))
    await _call(admin_state, "load")
    problem_id = _eval_row(admin_state).problem_id
    await _call(admin_state, "propose", problem_id=problem_id)
    await _settle(session, admin_state.fix.id)

    state = _state(await sign_in(session, "viewer@example.com"))
    await _call(state, "load")
    assert _eval_row(state).state == "proposed"
    await _call(state, "select_problem", problem_id=problem_id)
    assert state.has_fix and state.fix.status == "proposed" and state.diff_rows
    other = next(row for row in _rows(state) if not row.busy)
    for name, kwargs in (
        ("propose", {"problem_id": other.problem_id}),
        ("apply_fix", {}),
        ("reject_fix", {}),
        ("revert_fix", {}),
    ):
        events = await _call(state, name, **kwargs)
        assert "Access denied" in str(events) and "administrators" in str(events).lower(), name
    rows = await _fixes(session)
    assert [(fix.event_id, fix.status) for fix in rows] == [(problem_id, "proposed")]
    assert state.fix.patch_url == f"/api/fixes/{state.fix.id}/patch"


async def test_a_committed_secrets_patch_link_is_offered_to_admins_only(session, code_dir):
    """The server refuses the exact patch of a secret's fix to limited users: their panel has no link to it."""
    admin = await make_user(session, "root@example.com", role="admin")
    await make_user(session, "viewer@example.com", role="limited")
    await _full_scan(session, admin)
    admin_state = _state(await sign_in(session, "root@example.com"))
    await _call(admin_state, "load")
    secret = next(row for row in _rows(admin_state) if row.rule.startswith("secret:"))
    await _call(admin_state, "propose", problem_id=secret.problem_id)
    await _settle(session, admin_state.fix.id)
    await _call(admin_state, "select_problem", problem_id=secret.problem_id)
    assert admin_state.fix.status == "proposed" and admin_state.fix.patch_url.endswith("/patch")

    state = _state(await sign_in(session, "viewer@example.com"))
    await _call(state, "load")
    await _call(state, "select_problem", problem_id=secret.problem_id)
    assert state.fix.status == "proposed" and state.fix.diff and state.fix.patch_url == ""


async def test_a_signed_out_tab_changes_nothing(session, code_dir):
    admin = await make_user(session, "root@example.com", role="admin")
    await _full_scan(session, admin)
    reader = _state(await sign_in(session, "root@example.com"))
    await _call(reader, "load")
    problem_id = _eval_row(reader).problem_id

    state = _state("")
    for name, kwargs in (
        ("load", {}),
        ("propose", {"problem_id": problem_id}),
        ("apply_fix", {}),
        ("select_problem", {"problem_id": problem_id}),
        ("set_filter_kind", {"value": "code"}),
    ):
        events = await _call(state, name, **kwargs)
        assert "Unauthorized" in str(events), name
    assert await _fixes(session) == []
    assert state.groups == [] and state.filter_kind == "all" and state.loading


async def test_filters_are_validated_and_narrow_the_list(session, settings):
    """On the bundled demo sources (nothing is written: no workspace), whose findings belong to the demo sites."""
    assert not code_roots.workspace_for(code_roots.DEMO_SOURCES).exists()
    admin = await make_user(session, "root@example.com", role="admin")
    await sites.init_default_sites(session=session, settings=settings)
    await _full_scan(session, admin)
    state = _state(await sign_in(session, "root@example.com"))
    await _call(state, "load")
    everything = len(_rows(state))
    assert {group.site for group in state.groups} >= {"Gem", "Tour"}
    assert {option.label for option in state.site_options} >= {"Stock", "Tour", "Gem", "Shares"}

    for name, value in (
        ("set_filter_severity", "critical"),
        ("set_filter_kind", "binary"),
        ("set_filter_site", "gem"),
        ("set_filter_site", "1" * 20),
        ("set_filter_severity", "x" * 5000),
    ):
        events = await _call(state, name, value=value)
        assert "Error" in str(events) and "must be" in str(events), (name, value)
    assert (state.filter_site, state.filter_severity, state.filter_kind) == ("all", "all", "all")
    assert len(_rows(state)) == everything

    await _call(state, "set_filter_severity", value="high")
    assert _rows(state) and all(row.severity == "high" for row in _rows(state))
    await _call(state, "set_filter_severity", value="all")
    await _call(state, "set_filter_kind", value="site")
    assert _rows(state) == [] and state.problem_count == 0  # no probe has run: no header problems yet
    await _call(state, "set_filter_kind", value="code")
    assert len(_rows(state)) == everything
    gem = (await session.exec(select(Site).where(Site.default_slug == "gem"))).one()
    await _call(state, "set_filter_site", value=str(gem.id))
    assert [group.site for group in state.groups] == ["Gem"] and state.filter_site == str(gem.id)


async def test_opening_a_problem_not_listed_or_a_bad_id_is_a_toast(session, code_dir):
    await make_user(session, "root@example.com", role="admin")
    state = _state(await sign_in(session, "root@example.com"))
    await _call(state, "load")
    assert state.problem_count == 0 and state.groups == []
    for name, kwargs in (
        ("select_problem", {"problem_id": 12345}),
        ("select_fix", {"fix_id": 12345}),
        ("select_problem", {"problem_id": "x"}),
        ("propose", {"problem_id": "0"}),
    ):
        events = await _call(state, name, **kwargs)
        assert "Error" in str(events), name
    assert not state.has_fix and not state.has_problem
    assert "Open a fix first" in str(await _call(state, "apply_fix"))
