"""Many sites at once (issue 26): pause and resume monitoring, remove a chosen set; admins only, one audit entry each,
and a paused site is not probed by a round or by a save."""

from __future__ import annotations

import pytest
from sqlmodel import select

from secdash.core.unit import commit
from secdash.models import EventSeverity, EventType, HistoryLog, SecurityEvent, Site
from secdash.services.errors import Invalid, PermissionDenied
from secdash.services.monitoring import monitor, site_bulk
from secdash.services.problems import events
from tests.factories import make_user


async def _sites(session, count: int) -> list[int]:
    rows = [Site(name=f"site {i}", url=f"https://s{i}.example/", domain=f"s{i}.example") for i in range(count)]
    session.add_all(rows)
    await session.commit()
    return [row.id for row in rows]


async def test_pausing_counts_what_changed_and_a_paused_site_is_not_probed(session, monkeypatch):
    admin = await make_user(session, "root@example.com", role="admin")
    ids = await _sites(session, 4)
    outcome = await site_bulk.set_paused(session=session, actor=admin, site_ids=[ids[0], ids[1], 999_999], paused=True)
    assert (outcome.changed, outcome.unchanged, outcome.missing) == (2, 0, 1)
    again = await site_bulk.set_paused(session=session, actor=admin, site_ids=[ids[0]], paused=True)
    assert (again.changed, again.unchanged) == (0, 1)
    logs = list(await session.exec(select(HistoryLog).where(HistoryLog.action == "Monitoring paused")))
    assert len(logs) == 1 and "site 0 and site 1" in logs[0].description

    probed: list[list[int]] = []

    async def fake_probe_and_apply(targets, clients, concurrency):
        probed.append([target[0] for target in targets])
        return {}

    monkeypatch.setattr(monitor, "_probe_and_apply", fake_probe_and_apply)
    await monitor.probe_all(clients=object())
    assert probed[-1] == ids[2:]

    resumed = await site_bulk.set_paused(session=session, actor=admin, site_ids=ids[:2], paused=False)
    assert resumed.changed == 2
    await monitor.probe_requested(clients=object())
    assert probed[-1] == ids[:2]  # a resumed site is probed at once


async def test_removing_several_sites_closes_their_problems_in_one_entry(session):
    admin = await make_user(session, "root@example.com", role="admin")
    ids = await _sites(session, 5)
    events.record(
        session,
        event_type=EventType.site_status_changed,
        severity=EventSeverity.high,
        description="site 1 is now down",
        site_id=ids[1],
    )
    await commit(session)
    outcome = await site_bulk.delete_sites(session=session, actor=admin, site_ids=ids[:3])
    assert (outcome.changed, outcome.missing) == (3, 0)
    assert [site.id for site in await session.exec(select(Site).order_by(Site.id))] == ids[3:]
    event = (await session.exec(select(SecurityEvent))).one()
    assert event.resolved and event.details["removedSite"] == "site 1"
    log = (await session.exec(select(HistoryLog).where(HistoryLog.action == "Sites removed"))).one()
    assert "3 sites (site 0, site 1, site 2)" in log.description and log.details["closedProblems"] == 1


async def test_a_limited_user_cannot_and_an_empty_choice_is_refused(session):
    admin = await make_user(session, "root@example.com", role="admin")
    viewer = await make_user(session, "view@example.com", role="limited")
    ids = await _sites(session, 2)
    with pytest.raises(PermissionDenied):
        await site_bulk.set_paused(session=session, actor=viewer, site_ids=ids, paused=True)
    with pytest.raises(PermissionDenied):
        await site_bulk.delete_sites(session=session, actor=viewer, site_ids=ids)
    with pytest.raises(Invalid, match="at least one"):
        await site_bulk.delete_sites(session=session, actor=admin, site_ids=[])
    with pytest.raises(Invalid, match="at most"):
        await site_bulk.set_paused(session=session, actor=admin, site_ids=range(10_001), paused=True)
    assert len(list(await session.exec(select(Site)))) == 2
