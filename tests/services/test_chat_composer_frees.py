"""The composer frees as soon as the reply is complete: the engine's threat judgement runs after,
then updates the reply's threat level (and raises the Center's toast) when it arrives."""

from __future__ import annotations

import asyncio

import pytest
import reflex as rx
from sqlmodel import select

import secdash.secdash  # noqa: F401
from secdash.ai.base import Done, Structured, TextDelta
from secdash.models import DefenseChatMessage
from secdash.state.chat_widget import ChatWidgetState
from secdash.state.defense_command import DefenseCenterState
from tests.factories import make_user, sign_in


class SlowJudge:
    """A model whose reply is immediate and whose threat judgement ("critical") waits for `release`."""

    name = "slow-judge"
    model = "slow-judge-1"

    def __init__(self) -> None:
        self.judging = asyncio.Event()
        self.release = asyncio.Event()

    async def stream(self, task):
        yield TextDelta("Noted.")
        yield Done()

    async def structured(self, task, schema):
        self.judging.set()
        await self.release.wait()
        return Structured(schema.model_validate({"threatLevel": "critical", "reason": "judged slowly"}))


async def _signed_in_state(session, state_cls):
    await make_user(session, "ops@example.com", role="admin")
    root = rx.State(_reflex_internal_init=True)
    state = root.get_substate(state_cls.get_full_name().split("."))
    state.auth_token = await sign_in(session, "ops@example.com")
    return state


def _busy(state) -> bool:
    return state.streaming


def _lines(state) -> list:
    return state.lines if isinstance(state, ChatWidgetState) else state.chats["stock"]


@pytest.mark.parametrize("state_cls", [ChatWidgetState, DefenseCenterState])
async def test_the_composer_is_free_while_the_threat_judgement_runs(session, monkeypatch, state_cls):
    judge = SlowJudge()
    monkeypatch.setattr("secdash.services.agents.ai_calls.get_provider", lambda settings: judge)
    state = await _signed_in_state(session, state_cls)
    state.draft = "routine status check"
    await state_cls.event_handlers["send"].fn(state)
    events: list = []

    async def run():
        async for event in state_cls.event_handlers["stream_reply"].fn(state):
            events.append(event)

    task = asyncio.create_task(run())
    await asyncio.wait_for(judge.judging.wait(), 5)
    try:
        assert not _busy(state)  # the reply is shown and the composer is free
        assert _lines(state)[-1].text == "Noted." and _lines(state)[-1].threat_level == "low"
        assert not task.done()  # the judgement is still running
    finally:
        judge.release.set()
        await asyncio.wait_for(task, 5)
    assert _lines(state)[-1].threat_level == "critical"  # the engine's judgement raised the rules' "low"
    session.expire_all()
    stored = (await session.exec(select(DefenseChatMessage).where(DefenseChatMessage.role == "assistant"))).one()
    assert stored.threat_level == "critical"
    if state_cls is DefenseCenterState:
        assert "High Threat Detected" in str(events)
