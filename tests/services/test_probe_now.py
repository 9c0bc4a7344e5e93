"""A new or edited site is probed at once by the monitor (not at its next round), outside the request's
transaction: saving returns without waiting for the probe."""

from __future__ import annotations

import asyncio
import time
from datetime import timedelta

from sqlmodel import select

from secdash.core.db import session_scope
from secdash.models import Site, SiteCheck
from secdash.services.monitoring import monitor, sites
from secdash.services.probe import ProbeClients, ProbeResult
from tests.factories import make_user
from tests.support.probe_servers import Step, StepServer, chain


async def _stored(site_id: int) -> Site:
    async with session_scope() as session:
        return await session.get(Site, site_id)


async def _until_checked(site_id: int, after=None, timeout: float = 5.0) -> Site:
    async with asyncio.timeout(timeout):
        while True:
            site = await _stored(site_id)
            if site.last_checked_at is not None and (after is None or site.last_checked_at > after):
                return site
            await asyncio.sleep(0.02)


async def test_a_new_site_is_probed_at_once_and_saving_does_not_wait_for_it(session):
    admin = await make_user(session, "root@example.com", role="admin")
    async with ProbeClients() as clients:
        follower = asyncio.create_task(monitor.probe_on_request(clients))
        await asyncio.sleep(0)  # the follower subscribes
        try:
            with StepServer(chain(1, 0.5)) as server:
                started = time.monotonic()
                site = await sites.create_site(
                    session=session, actor=admin, name="Shop", url=server.base + "/hop1", allow_private=True
                )
                saved_in = time.monotonic() - started
                stored = await _until_checked(site.id)
                probed_in = time.monotonic() - started
        finally:
            follower.cancel()
    assert saved_in < 0.4  # the 0.5 s redirect is not waited for by the save
    assert probed_in < 2.0  # at once: not at the next round (30 s by default)
    assert stored.status_code == 200 and stored.redirects == 1 and stored.ttfb_ms >= 500
    assert stored.response_time_ms >= stored.ttfb_ms


async def test_an_edited_site_is_probed_again_at_once(session):
    admin = await make_user(session, "root@example.com", role="admin")
    with StepServer({"/": Step()}) as first, StepServer({"/": Step(status=503)}) as second:
        site = await sites.create_site(session=session, actor=admin, name="Shop", url=first.base + "/", allow_private=True)
        await monitor.probe_requested()  # what the follower does when woken
        before = await _stored(site.id)
        assert before.status_code == 200
        async with ProbeClients() as clients:
            follower = asyncio.create_task(monitor.probe_on_request(clients))
            await asyncio.sleep(0)
            try:
                await sites.update_site(
                    session=session, actor=admin, site_id=site.id, name="Shop 2", url=first.base + "/", allow_private=True
                )
                renamed = await _until_checked(site.id, after=before.last_checked_at)
                await sites.update_site(
                    session=session, actor=admin, site_id=site.id, name="Shop 2", url=second.base + "/", allow_private=True
                )
                moved = await _until_checked(site.id, after=renamed.last_checked_at)
            finally:
                follower.cancel()
    assert renamed.status_code == 200 and renamed.name == "Shop 2"
    assert moved.status_code == 503 and moved.status == "critical"


async def test_only_sites_saved_since_their_last_check_are_probed(session):
    admin = await make_user(session, "root@example.com", role="admin")
    with StepServer({"/": Step()}) as server:
        one = await sites.create_site(session=session, actor=admin, name="One", url=server.base + "/", allow_private=True)
        assert await monitor.probe_requested() == {one.id: "secure"}
        assert await monitor.probe_requested() == {}  # nothing new saved
        two = await sites.create_site(session=session, actor=admin, name="Two", url=server.base + "/?two", allow_private=True)
        assert await monitor.probe_requested() == {two.id: "secure"}


async def test_a_probe_of_a_url_the_site_no_longer_has_is_dropped(session):
    """A monitor round that probed the old URL and answers after the edit must not show the old site's figures."""
    admin = await make_user(session, "root@example.com", role="admin")
    with StepServer({"/": Step()}) as server:
        site = await sites.create_site(session=session, actor=admin, name="Shop", url=server.base + "/", allow_private=True)
        old_url = site.url
        await sites.update_site(
            session=session, actor=admin, site_id=site.id, name="Shop", url=server.base + "/new", allow_private=True
        )
    late = ProbeResult(
        url=old_url,
        checked_at=site.probe_requested_at + timedelta(seconds=1),
        status_code=200,
        response_ms=5.0,
        grade="A",
        score=95,
    )
    async with session_scope() as db:
        stored = await db.get(Site, site.id)
        assert await monitor.apply_probe(db, stored, late) is None
        await db.commit()
    stored = await _stored(site.id)
    assert stored.last_checked_at is None and stored.status_code is None
    async with session_scope() as db:
        assert (await db.exec(select(SiteCheck))).all() == []
