"""The stream in-flight guard of state.base, as every chat surface gets it."""

from __future__ import annotations

import pytest
import reflex as rx

import secdash.secdash  # noqa: F401
from secdash.state import chat_widget, defense_command
from secdash.state.chat_widget import ChatWidgetState
from secdash.state.defense_command import DefenseCenterState, DefenseCommandState
from tests.factories import make_user, sign_in

SURFACES = [(ChatWidgetState, chat_widget), (DefenseCommandState, defense_command), (DefenseCenterState, defense_command)]


async def _state(session, cls):
    await make_user(session, "ops@example.com")
    root = rx.State(_reflex_internal_init=True)
    state = root.get_substate(cls.get_full_name().split("."))
    state.auth_token = await sign_in(session, "ops@example.com")
    if cls is DefenseCommandState:
        state.selected = "stock"
    return state


async def _drain(gen) -> list:
    return [item async for item in gen]


@pytest.mark.parametrize(("cls", "module"), SURFACES)
async def test_a_stream_that_fails_unexpectedly_still_frees_the_composer(session, monkeypatch, cls, module):
    state = await _state(session, cls)

    async def broken(*_args, **_kwargs):
        raise RuntimeError("a bug in the middle of a reply")

    monkeypatch.setattr(module, "stream_into", broken)
    state.draft = "first question"
    assert await cls.event_handlers["send"].fn(state) is cls.event_handlers["stream_reply"]
    assert state.streaming
    with pytest.raises(RuntimeError):
        await _drain(cls.event_handlers["stream_reply"].fn(state))
    assert not state.streaming  # not stuck: the next question can be sent
    state.draft = "second question"
    assert await cls.event_handlers["send"].fn(state) is cls.event_handlers["stream_reply"]


@pytest.mark.parametrize(("cls", "module"), SURFACES)
async def test_one_armed_reply_runs_once_however_often_the_stream_is_asked_for(session, monkeypatch, cls, module):
    state = await _state(session, cls)
    runs: list[str] = []

    async def fake_stream(_state, *, text, **_kwargs):
        runs.append(text)
        return None, ""  # as if stopped before any text

    monkeypatch.setattr(module, "stream_into", fake_stream)
    state.draft = "one question"
    await cls.event_handlers["send"].fn(state)
    assert await cls.event_handlers["send"].fn(state) is None  # a second send while it streams: refused
    for _ in range(5):
        await _drain(cls.event_handlers["stream_reply"].fn(state))
    assert runs == ["one question"] and not state.streaming
