"""Input limits in one place: every text a user types in the UI has its length rule in the service the
UI calls, and the API refuses the same over-long text with the same message (not pydantic's own
wording, which the UI never showed). The limit is still documented in /api/openapi.json."""

from __future__ import annotations

import pytest
from sqlmodel import select

from secdash.models import DefenseChatMessage, SecurityEvent, Site
from secdash.services import audit
from secdash.services.agents import defense_chat
from secdash.services.errors import Invalid
from secdash.services.identity import auth
from secdash.services.monitoring import sites
from secdash.services.probe import MAX_URL_LENGTH
from secdash.services.problems import events, resolution
from tests.api.conftest import bearer
from tests.factories import DEFAULT_PASSWORD, make_user

URL = "https://example.com/"
LONG_URL = URL + "a" * (MAX_URL_LENGTH + 1 - len(URL))


@pytest.fixture
async def root(session):
    return await make_user(session, "root@example.com", role="admin")


@pytest.fixture
async def admin(client, root):
    headers = await bearer(client, "root@example.com", DEFAULT_PASSWORD)
    client.cookies.clear()
    return headers


async def _service_message(call) -> str:
    with pytest.raises(Invalid) as refused:
        await call
    return refused.value.message


async def _api_message(client, method: str, path: str, body=None, headers=None) -> str:
    response = await client.request(method, path, json=body, headers=headers or {})
    assert response.status_code == 400, response.text
    return response.json()["message"]


@pytest.mark.parametrize(
    ("field", "email", "password"),
    [
        ("email", "a" * (auth.MAX_EMAIL_LENGTH - 4) + "@b.co", "x"),
        ("password", "ops@example.com", "p" * (auth.MAX_PASSWORD_LENGTH + 1)),
    ],
)
async def test_sign_in_fields(client, session, settings, field, email, password):
    await make_user(session, "ops@example.com")
    service = await _service_message(auth.login(session=session, settings=settings, email=email, password=password))
    api = await _api_message(client, "POST", "/api/auth/login", {"email": email, "password": password})
    assert api == service
    assert service.startswith(f"{field} must be at most ")


@pytest.mark.parametrize(
    ("field", "name", "url"),
    [
        ("name", "n" * (sites.MAX_NAME_LENGTH + 1), URL),
        ("url", "Blog", LONG_URL),
    ],
)
async def test_site_fields_when_adding_and_editing(client, session, root, admin, field, name, url):
    service = await _service_message(sites.create_site(session=session, actor=root, name=name, url=url))
    assert service.startswith(f"{field} must be at most ")
    assert await _api_message(client, "POST", "/api/sites", {"name": name, "url": url}, admin) == service

    site = Site(name="Blog", domain="example.com", url=URL)
    session.add(site)
    await session.commit()
    edit = await _service_message(sites.update_site(session=session, actor=root, site_id=site.id, name=name, url=url))
    assert edit == service
    assert await _api_message(client, "PUT", f"/api/sites/{site.id}", {"name": name, "url": url}, admin) == service
    await session.refresh(site)
    assert (site.name, site.url) == ("Blog", URL)
    assert len((await session.exec(select(Site))).all()) == 1


async def test_resolve_note(client, session, root, admin):
    event = SecurityEvent(event_type="attack_detected", severity="high", description="Probe flood on Tour")
    session.add(event)
    await session.commit()
    note = "n" * (events.MAX_NOTE_LENGTH + 1)
    service = await _service_message(resolution.resolve_event(session=session, actor=root, event_id=event.id, note=note))
    assert service == f"note must be at most {events.MAX_NOTE_LENGTH} characters"
    api = await _api_message(client, "POST", f"/api/security-events/{event.id}/resolve", {"note": note}, admin)
    assert api == service
    await session.refresh(event)
    assert event.resolved is False


@pytest.mark.parametrize(
    ("path", "body"),
    [
        ("/api/defense-chat/message", {"content": "c" * (defense_chat.MAX_MESSAGE_LENGTH + 1)}),
        ("/api/defense-chat", {"message": "m" * (defense_chat.MAX_MESSAGE_LENGTH + 1), "agentId": "stock"}),
        ("/api/ai-chat", {"message": "m" * (defense_chat.MAX_MESSAGE_LENGTH + 1), "agentId": "stock"}),
    ],
)
async def test_chat_messages(client, session, admin, path, body):
    """All three chat surfaces of the UI validate with defense_chat.validate; the API says the same."""
    with pytest.raises(Invalid) as refused:
        defense_chat.validate("x" * (defense_chat.MAX_MESSAGE_LENGTH + 1), "stock")
    assert refused.value.message == f"message must be at most {defense_chat.MAX_MESSAGE_LENGTH} characters"
    assert await _api_message(client, "POST", path, body, admin) == refused.value.message
    assert (await session.exec(select(DefenseChatMessage))).all() == []


async def test_history_search(client, session, admin):
    with pytest.raises(Invalid) as refused:
        audit.parse_search("q" * (audit.MAX_SEARCH_LENGTH + 1))
    api = await _api_message(client, "GET", "/api/history-logs?q=" + "q" * (audit.MAX_SEARCH_LENGTH + 1), None, admin)
    assert api == refused.value.message == f"q must be at most {audit.MAX_SEARCH_LENGTH} characters"


async def test_the_limits_are_documented(client):
    document = (await client.get("/api/openapi.json")).json()
    schemas = document["components"]["schemas"]
    assert schemas["LoginRequest"]["properties"]["email"]["maxLength"] == auth.MAX_EMAIL_LENGTH
    assert schemas["LoginRequest"]["properties"]["password"]["maxLength"] == auth.MAX_PASSWORD_LENGTH
    assert schemas["SiteIn"]["properties"]["name"]["maxLength"] == sites.MAX_NAME_LENGTH
    assert schemas["SiteIn"]["properties"]["url"]["maxLength"] == MAX_URL_LENGTH
    assert schemas["ResolveIn"]["properties"]["note"]["maxLength"] == events.MAX_NOTE_LENGTH
    assert schemas["WidgetMessageIn"]["properties"]["content"]["maxLength"] == defense_chat.MAX_MESSAGE_LENGTH
    search = next(p for p in document["paths"]["/api/history-logs"]["get"]["parameters"] if p["name"] == "q")
    assert search["schema"]["maxLength"] == audit.MAX_SEARCH_LENGTH


async def test_notification_channel_fields(client, session, root, admin):
    """The Settings page and the API refuse an over-long channel name or URL with the service's words."""
    from secdash.services.alerting import channels, targets

    long_name, long_url = "n" * (channels.MAX_NAME_CHARS + 1), "json://example.com/" + "a" * targets.MAX_URL_CHARS
    for name, url in ((long_name, "json://example.com/hook"), ("Ops", long_url)):
        service = await _service_message(channels.create_channel(session=session, actor=root, name=name, url=url))
        assert "too long" in service
        body = {"name": name, "url": url}
        assert await _api_message(client, "POST", "/api/notification-channels", body, admin) == service
        fine = {"name": "Ops", "url": "json://example.com/x", "allowPrivate": True}
        created = (await client.post("/api/notification-channels", json=fine, headers=admin)).json()
        assert await _api_message(client, "PUT", f"/api/notification-channels/{created['id']}", body, admin) == service
        await client.delete(f"/api/notification-channels/{created['id']}", headers=admin)


async def test_a_hand_edited_artifact_version_note(client, session):
    from secdash.services.artifacts import limits

    with pytest.raises(Invalid) as refused:
        limits.parse_note("c" * (limits.MAX_CHANGES_CHARS + 1))
    user = await make_user(session, "artist@example.com")
    headers = await bearer(client, "artist@example.com", DEFAULT_PASSWORD)
    from secdash.models.artifacts import Artifact

    session.add(Artifact(owner_user_id=user.id, name="Page", status="ready"))
    await session.commit()
    artifact_id = (await session.exec(select(Artifact))).one().id
    body = {"htmlContent": "<p>x</p>", "changes": "c" * (limits.MAX_CHANGES_CHARS + 1)}
    assert await _api_message(client, "POST", f"/api/artifacts/{artifact_id}/versions", body, headers) == refused.value.message


SERVICE_CHECKED = {
    ("LoginRequest", "email"),
    ("LoginRequest", "password"),
    ("SiteIn", "name"),
    ("SiteIn", "url"),
    ("ResolveIn", "note"),
    ("WidgetMessageIn", "content"),
    ("AgentMessageIn", "message"),
    ("PlatformMessageIn", "message"),
    ("ChannelIn", "name"),
    ("ChannelIn", "url"),
    ("ChannelChangeIn", "name"),
    ("ChannelChangeIn", "url"),
    ("EditIn", "changes"),
}


def test_every_text_field_left_to_a_service_is_covered_above():
    """A request field whose limit is only documented (schemas.text) must have its service rule tested here."""
    from secdash.api.main import create_api
    from tests.api.test_openapi_document import api_routes

    left_to_services = set()
    for _path, route in api_routes(create_api()):
        if route.body_field is None:
            continue
        model = route.body_field.field_info.annotation
        for name, field in getattr(model, "model_fields", {}).items():
            documented = isinstance(field.json_schema_extra, dict) and "maxLength" in field.json_schema_extra
            enforced = any(hasattr(rule, "max_length") for rule in field.metadata)
            if documented and not enforced:
                left_to_services.add((model.__name__, name))
    assert left_to_services == SERVICE_CHECKED
