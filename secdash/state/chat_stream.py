"""Streaming a defense-agent reply into a page state: small batches, stoppable, never holding the lock."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime

import reflex as rx

from secdash.core.config import get_settings
from secdash.models import UserPublic
from secdash.services import defense_chat
from secdash.services.defense_chat import ReplyDone
from secdash.services.errors import Invalid, RateLimited

MAX_MESSAGE_LENGTH = defense_chat.MAX_MESSAGE_LENGTH
# A draft may grow past the limit (nothing typed or pasted is cut); sending it is refused with the reason.
MAX_DRAFT_LENGTH = MAX_MESSAGE_LENGTH * 5
FLUSH_SECONDS = 0.075  # ARCHITECTURE.md: streamed text reaches the browser in ~50-100 ms batches


@dataclass
class ChatLine:
    """One message as the chat surfaces show it."""

    id: str = ""
    sender: str = "user"  # user | agent
    text: str = ""
    time: str = ""
    agent_id: str = "general"
    threat_level: str = ""
    engine: str = ""


class ChatComposer(rx.State, mixin=True):
    """The text box and the reply being written, shared by every chat surface."""

    draft: str = ""
    partial: str = ""
    # The one reply `send` armed; `stream_reply` takes it. Nothing the client sends can arm one, so a
    # client calling stream_reply directly gets nothing, and a tab runs one reply at a time.
    _armed_text: str = ""
    _armed_agent: str = ""

    def _arm_reply(self, text: str, agent_id: str) -> None:
        self._armed_text, self._armed_agent = text, agent_id

    async def _take_armed_reply(self) -> tuple[str, str] | None:
        """The reply armed by `send`, once (call from a background task: takes the state lock)."""
        async with self:
            text, agent_id = self._armed_text, self._armed_agent
            self._armed_text = self._armed_agent = ""
        return (text, agent_id) if text else None

    @rx.event
    async def set_draft(self, value: str):
        if await self._current_user() is None:  # type: ignore[attr-defined]  # from AuthState
            return self._session_ended()  # type: ignore[attr-defined]
        self.draft = str(value)[:MAX_DRAFT_LENGTH]
        return None

    def _refusal(self, text: str) -> rx.event.EventSpec | None:
        """The API's own message for a message that may not be sent (too long), as a toast; the draft stays."""
        try:
            defense_chat.validate(text, "general")
        except Invalid as exc:
            return rx.toast.error("Message not sent", description=exc.message)
        return None

    @rx.event
    async def key_down(self, key: str):
        """Enter sends. Handled on the server after the text itself, so fast typing never loses a message."""
        if await self._current_user() is None:  # type: ignore[attr-defined]
            return self._session_ended()  # type: ignore[attr-defined]
        return type(self).send if key == "Enter" else None  # type: ignore[attr-defined]


def rate_limited_toast(exc: RateLimited) -> rx.event.EventSpec:
    return rx.toast.warning("Slow down", description=exc.message)


def now_label() -> str:
    return datetime.now(UTC).strftime("%H:%M:%S")


async def stream_into(
    state: ChatComposer, *, user: UserPublic, text: str, agent_id: str, surface: str,
    stop_requested: Callable[[], bool],
) -> tuple[ReplyDone | None, str]:
    """Run the reply, writing the text so far to `state.partial` under the state lock every batch.

    Returns (done, text): done is None when the user stopped it (the partial text is kept by the
    service). Domain and model errors propagate to the caller, which decides how to show them.
    """
    stream = defense_chat.stream_reply(user=user, content=text, agent_id=agent_id, surface=surface,
                                       settings=get_settings())
    pieces: list[str] = []
    last_flush = time.monotonic()
    stopped = False
    try:
        async for item in stream:
            if isinstance(item, ReplyDone):
                return item, item.content
            pieces.append(item)
            if time.monotonic() - last_flush >= FLUSH_SECONDS:
                last_flush = time.monotonic()
                async with state:
                    state.partial = "".join(pieces)
                    stopped = stop_requested()
                if stopped:
                    break
    finally:
        await stream.aclose()  # on Stop this closes the model request and stores the partial reply
    return None, "".join(pieces)
