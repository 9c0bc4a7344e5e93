"""Drills in tests: the drill's traffic reaches the demo sites in-process, from a loopback peer (so the demo
sites believe its drill marks), with Gem's slow pages and Shares' outage switched off."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import httpx

from secdash.demo_sites import routes as demo_site_routes
from secdash.services.battle import sender
from secdash.services.monitoring.sites import init_default_sites
from tests.support.api_app import shared_api


async def in_process_demo_sites(session, monkeypatch, settings):
    monkeypatch.setattr(demo_site_routes, "GEM_DELAY_SECONDS", 0.0)
    monkeypatch.setattr(settings, "DEMO_SHARES_OUTAGE", "up")
    app = shared_api()

    def open_client() -> httpx.AsyncClient:
        return httpx.AsyncClient(transport=httpx.ASGITransport(app=app, client=("127.0.0.1", 40000)), base_url="http://127.0.0.1")

    monkeypatch.setattr(sender, "open_client", open_client)
    await init_default_sites(session=session, settings=settings)
    return app


@asynccontextmanager
async def demo_sites_client(monkeypatch, settings) -> AsyncIterator[httpx.AsyncClient]:
    """A client for the demo sites' endpoints in-process (not a loopback peer: drill marks are checked)."""
    monkeypatch.setattr(demo_site_routes, "GEM_DELAY_SECONDS", 0.0)
    monkeypatch.setattr(settings, "DEMO_SHARES_OUTAGE", "up")
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=shared_api()), base_url="http://testserver") as client:
        yield client
