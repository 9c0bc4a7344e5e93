"""One figure on every screen (issue 23 item 3): the requests really blocked, read through the API's overview
(the Dashboard's card), AI Systems (per platform) and the defense agents (the Center), agree."""

from __future__ import annotations

from sqlmodel import select

from secdash.core.unit import commit
from secdash.models import Site
from secdash.services.problems import events
from tests.api.conftest import signed_in


async def test_threats_blocked_agree_across_the_overview_ai_systems_and_the_agents(client, session):
    headers = await signed_in(client, session, "root@example.com", "admin")
    assert (await client.post("/api/init-sites", headers=headers)).status_code in (200, 201)
    gem = (await session.exec(select(Site).where(Site.default_slug == "gem"))).one()
    stock = (await session.exec(select(Site).where(Site.default_slug == "stock"))).one()
    for site, blocked in ((gem, 7), (stock, 5), (gem, 3)):
        events.record_blocked_threat(
            session,
            description="blocked in a drill",
            source="drill",
            site_id=site.id,
            blocked_requests=blocked,
            resolved_note="blocked",
        )
    await commit(session)

    overview = (await client.get("/api/dashboard/overview", headers=headers)).json()
    platforms = {p["id"]: p for p in (await client.get("/api/ai-systems", headers=headers)).json()["platforms"]}
    agents = {a["id"]: a for a in (await client.get("/api/defense-agents", headers=headers)).json()}
    ai_agents = {a["id"]: a for a in (await client.get("/api/ai-agents", headers=headers)).json()}
    assert overview["threatsBlocked"] == 15
    assert {slug: p["threatsBlocked"] for slug, p in platforms.items()} == {"stock": 5, "tour": 0, "gem": 10, "shares": 0}
    assert {slug: a["threatsBlocked"] for slug, a in agents.items()} == {"stock": 5, "tour": 0, "gem": 10, "shares": 0}
    assert {slug: a["threatsBlocked"] for slug, a in ai_agents.items()} == {"stock": 5, "tour": 0, "gem": 10, "shares": 0}
