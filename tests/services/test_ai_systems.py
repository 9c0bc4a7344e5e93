"""AI Systems figures, each from its real source: stored checks, a code root, events and their
resolutions, AI activities and ai_calls; the rest from the fixed platform profiles."""

from __future__ import annotations

from datetime import timedelta

import pytest
from sqlmodel import select

from secdash.ai.calls import CallRecord
from secdash.core.unit import commit
from secdash.models import EventSeverity, EventType, Site, SiteCheck, utcnow
from secdash.models.scans import CodeRoot
from secdash.services.agents import activities, ai_calls, ai_systems
from secdash.services.errors import PermissionDenied
from secdash.services.monitoring import sites
from secdash.services.problems import events, resolution
from secdash.services.scanning import code_roots
from tests.factories import make_user


@pytest.fixture(autouse=True)
def _fresh_line_cache():
    ai_systems.clear_cache()
    yield
    ai_systems.clear_cache()


async def _defaults(session, settings) -> dict[str, Site]:
    await sites.init_default_sites(session=session, settings=settings)
    return {site.default_slug: site for site in await session.exec(select(Site))}


def _check(site: Site, minutes_ago: float, *, up: bool = True) -> SiteCheck:
    return SiteCheck(
        site_id=site.id,
        checked_at=utcnow() - timedelta(minutes=minutes_ago),
        status="secure" if up else "critical",
        status_code=200 if up else None,
        response_ms=40 if up else None,
        error=None if up else "connection refused",
    )


def _platform(data, slug: str):
    return next(p for p in data.platforms if p.id == slug)


async def test_without_checks_or_records_nothing_is_made_up(session, settings):
    await _defaults(session, settings)
    data = await ai_systems.read(session=session)
    assert [p.id for p in data.platforms] == ["stock", "tour", "gem", "shares"]
    stock = _platform(data, "stock")
    assert (stock.checks, stock.uptime_percent, stock.uptime_hours, stock.online) == (0, None, None, None)
    assert (stock.threats_detected, stock.threats_blocked, stock.false_positives) == (0, 0, 0)
    assert stock.ai.calls == 0 and stock.ai.avg_latency_ms is None
    assert data.status.operational is False and data.status.label.startswith("Awaiting first check")


async def test_uptime_from_stored_checks(session, settings):
    site = (await _defaults(session, settings))["tour"]
    # Oldest first: up, up, DOWN (90 min ago), up (80), up (20): 4 of 5 answered; up since 80 min ago.
    for minutes, up in ((200, True), (100, True), (90, False), (80, True), (20, True)):
        session.add(_check(site, minutes, up=up))
    await commit(session)
    tour = _platform(await ai_systems.read(session=session), "tour")
    assert tour.checks == 5
    assert tour.uptime_percent == 80.0
    assert tour.uptime_hours == 1.0  # from the first answered check after the failure to the newest check
    assert tour.uptime_since is not None and not tour.uptime_since_first_check  # it counts from after a failure

    session.add(_check(site, 1, up=False))  # the newest check failed: the streak is over
    await commit(session)
    tour = _platform(await ai_systems.read(session=session), "tour")
    assert tour.uptime_hours == 0.0 and tour.uptime_since is None
    assert tour.uptime_percent == round(100 * 4 / 6, 2)


async def test_status_badge_says_which_site_is_down(session, settings):
    defaults = await _defaults(session, settings)
    for slug, site in defaults.items():
        site.last_checked_at, site.status = utcnow(), "secure"
        site.status_code, site.last_error = (None, "connection refused") if slug == "gem" else (200, None)
        session.add(site)
    await commit(session)
    status = (await ai_systems.read(session=session)).status
    assert (status.operational, status.down, status.label) == (False, ["Gem"], "1 of 4 Systems Down: Gem")

    gem = defaults["gem"]
    gem.status_code, gem.last_error = 200, None
    session.add(gem)
    await commit(session)
    status = (await ai_systems.read(session=session)).status
    assert (status.operational, status.label) == (True, "All Systems Operational")


async def test_the_demo_sites_code_is_counted_from_their_stored_roots(session, settings):
    await _defaults(session, settings)
    data = await ai_systems.read(session=session)
    for platform in data.platforms:
        folder = code_roots.DEMO_SOURCES / platform.id
        texts = [path.read_bytes() for path in folder.rglob("*") if path.is_file() and "__pycache__" not in path.parts]
        expected = sum(len(text.splitlines()) for text in texts if b"\0" not in text)
        assert platform.code_lines == expected > 0
        assert platform.code_root == f"secdash/demo_sites/sources/{platform.id}"
    assert data.summary.code_lines == sum(p.code_lines for p in data.platforms)
    stored = {root.site_id for root in await session.exec(select(CodeRoot))}
    assert {p.site_id for p in data.platforms} <= stored


async def test_code_lines_counted_from_the_sites_root(session, settings, tmp_path, monkeypatch):
    monkeypatch.setattr(code_roots, "configured_roots", lambda: [])  # only the root this test stores
    site = (await _defaults(session, settings))["gem"]
    (tmp_path / "app.py").write_text("a = 1\nb = 2\nc = 3\n")
    (tmp_path / "web").mkdir()
    (tmp_path / "web" / "index.html").write_text("<p>\n</p>\n")
    session.add(CodeRoot(path=str(tmp_path), site_id=site.id))
    await commit(session)
    data = await ai_systems.read(session=session)
    assert _platform(data, "gem").code_lines == 5
    assert _platform(data, "stock").code_lines is None  # no root stored for it: no figure
    assert data.summary.code_lines == 5

    (tmp_path / "more.py").write_text("x = 1\n" * 10)
    assert _platform(await ai_systems.read(session=session), "gem").code_lines == 5  # counted a moment ago
    now = ai_systems.clock()
    monkeypatch.setattr(ai_systems, "clock", lambda: now + ai_systems.CODE_LINES_TTL_SECONDS + 1)
    assert _platform(await ai_systems.read(session=session), "gem").code_lines == 15


async def test_threats_and_false_positives_from_events(session, settings):
    site = (await _defaults(session, settings))["stock"]
    admin = await make_user(session, "root@example.com", role="admin")
    limited = await make_user(session, "viewer@example.com", role="limited")
    detected = events.record(
        session, event_type=EventType.attack_detected, severity=EventSeverity.high, description="probe burst", site_id=site.id
    )
    events.record(
        session,
        event_type=EventType.vulnerability_detected,
        severity=EventSeverity.medium,
        description="finding",
        site_id=site.id,
    )
    events.record(
        session, event_type=EventType.threat_blocked, severity=EventSeverity.high, description="blocked", site_id=site.id
    )
    events.record(session, event_type=EventType.attack_detected, severity=EventSeverity.low, description="no site")
    await commit(session)
    stock = _platform(await ai_systems.read(session=session), "stock")
    assert (stock.threats_detected, stock.threats_blocked, stock.false_positives) == (2, 1, 0)

    with pytest.raises(PermissionDenied):
        await resolution.resolve_event(session=session, actor=limited, event_id=detected.id, disposition="false_positive")
    resolved = await resolution.resolve_event(
        session=session, actor=admin, event_id=detected.id, note="a test run", disposition="false_positive"
    )
    assert resolved.false_positive is True and resolved.resolution_note == "a test run"
    stock = _platform(await ai_systems.read(session=session), "stock")
    assert stock.false_positives == 1


async def test_a_plain_resolution_is_not_a_false_positive(session, settings):
    site = (await _defaults(session, settings))["stock"]
    admin = await make_user(session, "root@example.com", role="admin")
    event = events.record(
        session, event_type=EventType.attack_detected, severity=EventSeverity.high, description="probe burst", site_id=site.id
    )
    await commit(session)
    resolved = await resolution.resolve_event(session=session, actor=admin, event_id=event.id)
    assert resolved.resolved and resolved.false_positive is False
    assert _platform(await ai_systems.read(session=session), "stock").false_positives == 0


async def test_recent_activities_are_the_sites_real_ones(session, settings):
    await _defaults(session, settings)
    for n in range(6):
        activities.record(session, activity_type="scan", target="Shares", description=f"probe {n}")
    activities.record(session, activity_type="block", target="Shares", description="made up", status="simulated", simulated=True)
    activities.record(session, activity_type="scan", target="Stock", description="other site")
    await commit(session)
    shares = _platform(await ai_systems.read(session=session), "shares")
    assert [a.description for a in shares.recent_activities] == ["probe 5", "probe 4", "probe 3", "probe 2"]


async def test_model_calls_tokens_and_latency_per_agent(session, settings):
    await _defaults(session, settings)
    user = await make_user(session, "root@example.com", role="admin")
    record = ai_calls.recorder(user)
    base = {"feature": "chat", "task": "chat", "user_id": user.id, "provider": "openai", "model": "m"}
    await record(CallRecord(agent="gem", outcome="ok", total_ms=100, prompt_tokens=50, completion_tokens=20, **base))
    await record(CallRecord(agent="gem", outcome="ok", total_ms=300, prompt_tokens=30, completion_tokens=10, **base))
    await record(CallRecord(agent="gem", outcome="error", total_ms=200, error_kind="timeout", **base))
    await record(CallRecord(agent="tour", outcome="ok", total_ms=7, **{**base, "provider": "offline"}))
    data = await ai_systems.read(session=session)
    gem = _platform(data, "gem").ai
    assert (gem.calls, gem.errors, gem.prompt_tokens, gem.completion_tokens, gem.calls_with_tokens) == (3, 1, 80, 30, 2)
    assert gem.avg_latency_ms == 200 and gem.last_call_at is not None
    tour = _platform(data, "tour").ai
    assert (tour.calls, tour.prompt_tokens, tour.calls_with_tokens, tour.avg_latency_ms) == (1, 0, 0, 7)
    assert _platform(data, "stock").ai.calls == 0


async def test_profile_figures_are_fixed_and_marked(session, settings):
    await _defaults(session, settings)
    first, second = await ai_systems.read(session=session), await ai_systems.read(session=session)
    assert [p.profile for p in first.platforms] == [p.profile for p in second.platforms]
    stock = _platform(first, "stock").profile
    assert (stock.source, stock.users, stock.data_size) == ("profile", 5837, "3.2TB")  # spec section 9
    assert first.summary.total_data_tb == 12.7 and first.summary.active_users == 8948 and first.summary.ai_models == 4
    assert all(row.source == "profile" for row in first.training)
