"""What one user may store (issue 21, item 14): the artifact and builder count limits alone let one limited user
store about 5 GB. A per-user quota of bytes (SECDASH_USER_STORAGE_MB) caps artifact versions and project files
together, with a message that says what to do, and a refused change stores nothing."""

from __future__ import annotations

import pytest
from sqlmodel import select

from secdash.models import User
from secdash.services import storage
from tests.api.conftest import signed_in
from tests.support.plant_artifact import plant

KB = 1024


def _page(size: int, mark: str = "x") -> str:
    return "<!doctype html><title>t</title><p>" + mark * (size - 34)


@pytest.fixture
async def full(client, session, settings, monkeypatch):
    """A limited user with 1.2 MB stored (three 400 KB artifacts), then a quota of 1 MB."""
    headers = await signed_in(client, session, "user@example.com", "limited")
    ids = [await plant("user@example.com", f"page {n}", _page(400 * KB)) for n in range(3)]
    monkeypatch.setattr(settings, "USER_STORAGE_MB", 1)
    return headers, ids


async def test_stored_bytes_are_counted_as_utf8(client, session):
    await signed_in(client, session, "user@example.com", "limited")
    await plant("user@example.com", "accents", _page(10 * KB, "é"))  # two bytes each
    await plant("user@example.com", "escapes", _page(KB, "\\"))  # a backslash is one byte (no escape syntax)
    owner = (await session.exec(select(User).where(User.email == "user@example.com"))).one()
    used = await storage.used_bytes(session, owner.id)
    assert 21 * KB - 100 < used < 21 * KB + 100


async def test_a_full_store_refuses_every_new_version_and_says_what_to_do(client, session, full):
    headers, ids = full
    before = (await client.get(f"/api/artifacts/{ids[0]}/history", headers=headers)).json()
    refused = [
        await client.post(f"/api/artifacts/{ids[0]}/versions", headers=headers, json={"htmlContent": _page(KB)}),
        await client.post(f"/api/artifacts/{ids[0]}/update", headers=headers, json={"prompt": "make it dark"}),
        await client.post("/api/artifacts/create", headers=headers, json={"prompt": "a landing page"}),
        await client.post("/api/code-project/build", headers=headers, json={"prompt": "a snake game"}),
    ]
    for response in refused:
        assert response.status_code == 400, response.text
        assert response.json()["message"].startswith("Your storage is full: 1.2 MB of 1.0 MB used")
        assert "Delete HTML artifacts or code projects you no longer need" in response.json()["message"]
    assert (await client.get(f"/api/artifacts/{ids[0]}/history", headers=headers)).json() == before
    assert len((await client.get("/api/artifacts", headers=headers)).json()) == 3


async def test_room_comes_back_when_something_is_deleted(client, session, full):
    headers, ids = full
    assert (await client.delete(f"/api/artifacts/{ids[1]}", headers=headers)).status_code == 204
    saved = await client.post(f"/api/artifacts/{ids[0]}/versions", headers=headers, json={"htmlContent": _page(KB)})
    assert saved.status_code == 201, saved.text
    too_big = await client.post(
        f"/api/artifacts/{ids[0]}/versions", headers=headers, json={"htmlContent": _page(250 * KB)}
    )  # 801 KB + 250 KB > 1 MB
    assert too_big.status_code == 400
    assert "this needs 0.2 MB more" in too_big.json()["message"]


async def test_one_users_store_does_not_limit_another(client, session, full):
    other = await signed_in(client, session, "other@example.com", "limited")
    created = await client.post("/api/artifacts/create", headers=other, json={"prompt": "a landing page"})
    assert created.status_code == 202, created.text
