"""Chat handlers called as a hostile websocket client would, and the per-user model budget that
covers the UI and the API together."""

from __future__ import annotations

import asyncio

import pytest
import reflex as rx
from sqlmodel import select

import secdash.secdash  # noqa: F401
from secdash.models import DefenseChatMessage
from secdash.services.agents import defense_chat
from secdash.services.errors import RateLimited
from secdash.services.identity import quotas
from secdash.state.chat_widget import ChatWidgetState
from secdash.state.defense_command import DefenseCenterState, DefenseCommandState
from tests.factories import make_user, sign_in
from tests.support.api_app import shared_api

CHAT_STATES = (ChatWidgetState, DefenseCommandState, DefenseCenterState)


async def _signed_in_state(session, state_cls, email="limited@example.com"):
    user = await make_user(session, email, role="limited")
    root = rx.State(_reflex_internal_init=True)
    state = root.get_substate(state_cls.get_full_name().split("."))
    state.auth_token = await sign_in(session, email)
    return user, state


async def _drain(gen) -> list:
    return [item async for item in gen]


async def _messages(session) -> list[DefenseChatMessage]:
    session.expire_all()
    # PostgreSQL returns rows in no particular order without ORDER BY
    return list(await session.exec(select(DefenseChatMessage).order_by(DefenseChatMessage.id)))


@pytest.mark.parametrize("state_cls", CHAT_STATES)
async def test_calling_stream_reply_directly_starts_no_model_call(session, state_cls):
    _user, state = await _signed_in_state(session, state_cls)
    handler = state_cls.event_handlers["stream_reply"].fn
    for _ in range(60):
        await _drain(handler(state))
    assert await _messages(session) == []  # nothing asked, nothing stored, no model call


@pytest.mark.parametrize("state_cls", CHAT_STATES)
async def test_one_send_streams_exactly_one_reply(session, state_cls):
    _user, state = await _signed_in_state(session, state_cls)
    if state_cls is DefenseCommandState:
        state.selected = "stock"
    state.draft = "How do we stop a brute force attack?"
    follow_up = await state_cls.event_handlers["send"].fn(state)
    assert follow_up is state_cls.event_handlers["stream_reply"]
    assert await state_cls.event_handlers["send"].fn(state) is None  # a second send while waiting: refused
    handler = state_cls.event_handlers["stream_reply"].fn
    await _drain(handler(state))
    await _drain(handler(state))  # replayed by a client: nothing armed any more
    roles = [m.role for m in await _messages(session)]
    assert roles == ["user", "assistant"]


async def test_the_model_budget_refuses_the_call_over_the_limit(session, settings, monkeypatch):
    monkeypatch.setattr(settings, "AI_CALLS_PER_MINUTE", 3)
    user = await make_user(session, "busy@example.com")
    for _ in range(3):
        await defense_chat.reply(user=user, content="what is xss?", agent_id="general", surface="api", settings=settings)
    with pytest.raises(RateLimited) as refused:
        await defense_chat.reply(user=user, content="what is xss?", agent_id="general", surface="api", settings=settings)
    assert refused.value.retry_after >= 1 and "Try again in" in refused.value.message
    other = await make_user(session, "calm@example.com")  # another user's budget is their own
    await defense_chat.reply(user=other, content="what is xss?", agent_id="general", surface="api", settings=settings)
    assert len([m for m in await _messages(session) if m.role == "user"]) == 4  # the refused question was not stored


async def test_replies_running_at_once_are_capped_per_user(settings):
    entered = asyncio.Event()
    release = asyncio.Event()

    async def hold():
        async with quotas.ai_call(settings=settings, user_id=42):
            entered.set()
            await release.wait()

    holders = [asyncio.create_task(hold()) for _ in range(quotas.MAX_CONCURRENT_AI_CALLS)]
    await entered.wait()
    await asyncio.sleep(0.05)
    with pytest.raises(RateLimited):
        async with quotas.ai_call(settings=settings, user_id=42):
            pass
    release.set()
    await asyncio.gather(*holders)
    async with quotas.ai_call(settings=settings, user_id=42):
        pass


async def test_the_widget_shows_the_budget_message_and_keeps_the_question(session, settings, monkeypatch):
    monkeypatch.setattr(settings, "AI_CALLS_PER_MINUTE", 1)
    _user, state = await _signed_in_state(session, ChatWidgetState)
    for attempt in range(2):
        state.draft = f"question {attempt}"
        await ChatWidgetState.event_handlers["send"].fn(state)
        events = await _drain(ChatWidgetState.event_handlers["stream_reply"].fn(state))
    assert "Too many AI requests" in str(events)
    assert state.draft == "question 1" and not state.streaming  # the text is given back


async def test_the_api_answers_429_with_retry_after_over_the_budget(session, settings, monkeypatch):
    import httpx

    from tests.factories import DEFAULT_PASSWORD

    monkeypatch.setattr(settings, "AI_CALLS_PER_MINUTE", 2)
    await make_user(session, "api@example.com")
    transport = httpx.ASGITransport(app=shared_api(), client=("198.51.100.9", 50000))
    async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as http:
        login = await http.post("/api/auth/login", json={"email": "api@example.com", "password": DEFAULT_PASSWORD})
        headers = {"Authorization": f"Bearer {login.json()['token']}"}
        statuses = [
            (await http.post("/api/defense-chat", json={"message": "what is ddos?", "agentId": "stock"}, headers=headers))
            for _ in range(3)
        ]
    assert [r.status_code for r in statuses] == [200, 200, 429]
    assert int(statuses[-1].headers["retry-after"]) >= 1
    assert "Too many AI requests" in statuses[-1].json()["message"]
