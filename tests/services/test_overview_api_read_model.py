"""The overview API serves the shared read model: the same JSON as a direct read, a write shows at once
(read your own write), and a hundred requests with nothing changed read the database only to check who asks."""

from __future__ import annotations

import asyncio
import json
from contextlib import contextmanager

from sqlalchemy import event

from secdash.core.db import get_engine
from secdash.core.unit import commit
from secdash.models import EventSeverity, EventType
from secdash.services.problems import events
from secdash.services.reads import dashboard
from tests.api.conftest import client, signed_in  # noqa: F401  (the API client fixture)
from tests.services.test_read_models import _sites_with_checks


@contextmanager
def statements():
    seen: list[str] = []

    def record(_conn, _cursor, statement, *_args):
        seen.append(" ".join(statement.lower().split()))

    engine = get_engine().sync_engine
    event.listen(engine, "before_cursor_execute", record)
    try:
        yield seen
    finally:
        event.remove(engine, "before_cursor_execute", record)


async def test_the_overview_is_the_direct_read_in_the_same_shape(client, session):  # noqa: F811
    headers = await signed_in(client, session, "root@example.com", "admin")
    await _sites_with_checks(session, 4, 3)
    events.record(session, event_type=EventType.threat_blocked, severity=EventSeverity.high, description="blocked")
    await commit(session)
    response = await client.get("/api/dashboard/overview", headers=headers)
    assert response.status_code == 200 and response.headers["content-type"] == "application/json"
    body = response.json()
    assert set(body) == {"sitesCount", "threatsBlocked", "sites", "aiActivities", "trafficData", "userStats", "recentEvents"}
    direct = json.loads(json.dumps(await dashboard.overview(session=session)))
    assert body == direct
    assert body["sitesCount"] == 4 and body["threatsBlocked"] == 1


async def test_a_write_shows_in_the_next_overview(client, session):  # noqa: F811
    headers = await signed_in(client, session, "root@example.com", "admin")
    before = (await client.get("/api/dashboard/overview", headers=headers)).json()
    created = await client.post(
        "/api/sites", json={"name": "Blog", "url": "http://127.0.0.1:9/", "allowPrivate": True}, headers=headers
    )
    assert created.status_code == 201, created.text
    after = (await client.get("/api/dashboard/overview", headers=headers)).json()
    assert after["sitesCount"] == before["sitesCount"] + 1
    assert after["sites"][-1]["name"] == "Blog"


async def test_many_requests_read_the_overview_once(client, session):  # noqa: F811
    headers = await signed_in(client, session, "root@example.com", "admin")
    await _sites_with_checks(session, 4, 3)
    await client.get("/api/dashboard/overview", headers=headers)  # read once
    with statements() as seen:
        bodies = await asyncio.gather(*(client.get("/api/dashboard/overview", headers=headers) for _ in range(50)))
    assert all(b.status_code == 200 for b in bodies)
    overview_tables = ("from sites", "from site_checks", "from security_events", "from ai_activities")
    assert not [s for s in seen if any(table in s for table in overview_tables)]  # only the sign-in checks
    assert len(seen) <= 50 * 2
