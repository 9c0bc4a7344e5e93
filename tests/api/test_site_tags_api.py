"""A site's tags through the API (issue 26): cleaned by the service, refused with a clear message, kept when an update
omits them."""

from __future__ import annotations

from secdash.models import Site
from tests.api.conftest import signed_in


async def test_tags_are_cleaned_refused_clearly_and_kept_when_omitted(client, session):
    site = Site(name="Shop", domain="shop.example", url="https://shop.example/")
    session.add(site)
    await session.commit()
    admin = await signed_in(client, session, "root@example.com", "admin")
    body = {"name": "Shop", "url": "https://shop.example/"}
    saved = await client.put(f"/api/sites/{site.id}", json=body | {"tags": [" Prod", "eu", "prod"]}, headers=admin)
    assert saved.status_code == 200, saved.text
    assert saved.json()["tags"] == ["eu", "prod"]
    kept = await client.put(f"/api/sites/{site.id}", json=body, headers=admin)  # omitted: unchanged
    assert kept.json()["tags"] == ["eu", "prod"]
    refused = await client.put(f"/api/sites/{site.id}", json=body | {"tags": ["no spaces"]}, headers=admin)
    assert refused.status_code == 400 and "may only hold" in refused.json()["message"]
    cleared = await client.put(f"/api/sites/{site.id}", json=body | {"tags": []}, headers=admin)
    assert cleared.json()["tags"] == []
