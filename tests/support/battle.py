"""Drills in tests: the drill's traffic reaches the demo sites in-process, from a loopback peer (so the demo
sites believe its drill marks), with Gem's slow pages and Shares' outage switched off."""

from __future__ import annotations

import httpx

from secdash.api.main import create_api
from secdash.demo_sites import routes as demo_site_routes
from secdash.services.battle import sender
from secdash.services.sites import init_default_sites


async def in_process_demo_sites(session, monkeypatch, settings):
    monkeypatch.setattr(demo_site_routes, "GEM_DELAY_SECONDS", 0.0)
    monkeypatch.setattr(settings, "DEMO_SHARES_OUTAGE", "up")
    app = create_api()

    def open_client() -> httpx.AsyncClient:
        return httpx.AsyncClient(transport=httpx.ASGITransport(app=app, client=("127.0.0.1", 40000)),
                                 base_url="http://127.0.0.1")

    monkeypatch.setattr(sender, "open_client", open_client)
    await init_default_sites(session=session, settings=settings)
    return app
