"""The monitor: probes stored, status changes become events and AI activity, once per change."""

from __future__ import annotations

from sqlmodel import select

from secdash.models import AiActivity, SecurityEvent, Site, SiteCheck
from secdash.services.monitoring import monitor, sites
from tests.factories import make_user
from tests.support.web_servers import STRONG_HEADERS as STRONG
from tests.support.web_servers import LocalSite


async def test_probe_rounds_record_history_and_status_changes(session):
    admin = await make_user(session, "root@example.com", role="admin")
    server = LocalSite({"/": (200, STRONG, b"ok", 0.0)})
    site = await sites.create_site(session=session, actor=admin, name="Blog", url=server.base + "/", allow_private=True)
    try:
        statuses = await monitor.probe_all()
        assert statuses[site.id] == "secure"
        await monitor.probe_all()
    finally:
        server.close()
    statuses = await monitor.probe_all()
    assert statuses[site.id] == "critical"
    await monitor.probe_all()

    await session.refresh(site)
    assert site.status == "critical" and site.last_error == "Connection refused" and site.response_time_ms is None
    checks = (await session.exec(select(SiteCheck).where(SiteCheck.site_id == site.id))).all()
    # the first probe and the change to ALERT; the two unchanged probes within UNCHANGED_CHECK_INTERVAL store no row
    assert [check.status for check in checks] == ["secure", "critical"]
    events = (await session.exec(select(SecurityEvent).where(SecurityEvent.site_id == site.id))).all()
    # plain http: the header grade's two problems (no HTTPS, no redirect to it), then the status change
    assert sorted(e.event_type for e in events if e.event_type != "site_status_changed") == ["vulnerability_detected"] * 2
    changes = [e for e in events if e.event_type == "site_status_changed"]
    assert len(changes) == 1  # first secure probe is not news; one event for the change to ALERT
    assert changes[0].severity == "high" and "Blog is now ALERT: Connection refused" in changes[0].description
    activity = (await session.exec(select(AiActivity))).all()
    assert [a.activity_type for a in activity] == ["scan"] and not activity[0].simulated


async def test_public_only_sites_are_not_allowed_to_reach_private_addresses(session):
    """Saving refuses such a site; one saved before that rule (or whose name now resolves privately) is
    still blocked by the probe, even next to an allowed site on the same address (one client per policy)."""
    server = LocalSite({"/": (200, STRONG, b"ok", 0.0)})
    url = server.base + "/"
    allowed = Site(name="Allowed", url=url, domain="127.0.0.1", allow_private=True)
    sneaky = Site(name="Sneaky", url=url, domain="127.0.0.1")
    session.add_all([allowed, sneaky])
    await session.commit()
    try:
        statuses = await monitor.probe_all()
    finally:
        server.close()
    await session.refresh(sneaky)
    assert statuses[allowed.id] == "secure"
    assert statuses[sneaky.id] == "critical" and sneaky.last_error == "Blocked: private address 127.0.0.1"


async def test_platform_agent_status_follows_its_site(session):
    from secdash.models import AgentRecord
    from secdash.services.agents import agents

    admin = await make_user(session, "root@example.com", role="admin")
    server = LocalSite({"/": (500, STRONG, b"down", 0.0)})
    try:
        await sites.create_site(session=session, actor=admin, name="Gem", url=server.base + "/", allow_private=True)
        await monitor.probe_all()
    finally:
        server.close()
    session.expire_all()
    assert (await session.get(AgentRecord, "gem")).status == "fighting"
    others = {a.id: a.status for a in await agents.list_agents(session=session)}
    assert others["stock"] == "monitoring"
