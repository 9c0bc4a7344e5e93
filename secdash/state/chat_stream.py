"""Streaming a defense-agent reply into a page state: small batches, stoppable, never holding the lock."""

from __future__ import annotations

import time
from collections.abc import AsyncGenerator, Callable
from dataclasses import dataclass, field, fields, replace
from datetime import UTC, datetime
from typing import Any

import reflex as rx

from secdash.core.config import get_settings
from secdash.models import UserPublic
from secdash.services.agents import defense_chat
from secdash.services.agents.defense_chat import ReplyDone, ThreatJudged
from secdash.services.errors import Invalid, RateLimited
from secdash.state.base import StreamGuard, protected
from secdash.state.browser_actions import toast

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


class ChatComposer(StreamGuard, mixin=True):
    """The text box and the reply being written, shared by every chat surface.

    `send` arms the reply with `_start_stream(...)` and `stream_reply` (declared with
    `protected_stream`) takes it once: a client calling stream_reply directly gets nothing, and a tab
    runs one reply at a time (state.base.StreamGuard).
    """

    draft: str = ""
    partial: str = ""

    @protected(reads_only=True)
    async def set_draft(self, value: str):
        self.draft = str(value)[:MAX_DRAFT_LENGTH]
        return None

    def _refusal(self, text: str) -> rx.event.EventSpec | None:
        """The API's own message for a message that may not be sent (too long), as a toast; the draft stays."""
        try:
            defense_chat.validate(text, "general")
        except Invalid as exc:
            return toast.error("Message not sent", description=exc.message)
        return None

    @protected(reads_only=True)
    async def key_down(self, key: str):
        """Enter sends. Handled on the server after the text itself, so fast typing never loses a message."""
        return type(self).send if key == "Enter" else None  # type: ignore[attr-defined]


def with_threat_level(lines: list[ChatLine], line_id: str, level: str) -> list[ChatLine]:
    """The lines with `line_id`'s threat level set (the engine's judgement arriving after the reply)."""
    return [replace(line, threat_level=level) if line.id == line_id else line for line in lines]


def rate_limited_toast(exc: RateLimited) -> rx.event.EventSpec:
    return toast.warning("Slow down", description=exc.message)


def now_label() -> str:
    return datetime.now(UTC).strftime("%H:%M:%S")


@dataclass(frozen=True)
class StreamedReply(ReplyDone):
    """A finished reply (ReplyDone's fields, `threat_level` being the rules' level) whose engine
    judgement is still to come: the caller shows the reply and frees the composer first, then awaits
    `judged_level()` (every surface does, so the judgement is stored and recorded)."""

    rest: AsyncGenerator[Any, None] | None = field(default=None, compare=False, repr=False)

    async def judged_level(self) -> str:
        """The final threat level (the service's ThreatJudged); the rules' level if none comes."""
        level = self.threat_level
        if self.rest is None:
            return level
        try:
            async for item in self.rest:
                if isinstance(item, ThreatJudged):
                    level = item.threat_level
        finally:
            await self.rest.aclose()
        return level


async def stream_into(
    state: ChatComposer,
    *,
    user: UserPublic,
    text: str,
    agent_id: str,
    surface: str,
    stop_requested: Callable[[], bool],
) -> tuple[StreamedReply | None, str]:
    """Run the reply, writing the text so far to `state.partial` under the state lock every batch.

    Returns (done, text) as soon as the reply is complete, before the threat judgement: done is None
    when the user stopped it (the partial text is kept by the service), else a StreamedReply whose
    `judged_level()` the caller awaits after freeing the composer. Domain and model errors
    propagate to the caller, which decides how to show them.
    """
    stream = defense_chat.stream_reply(user=user, content=text, agent_id=agent_id, surface=surface, settings=get_settings())
    pieces: list[str] = []
    last_flush = time.monotonic()
    stopped = False
    handed_over = False
    try:
        async for item in stream:
            if isinstance(item, ReplyDone):
                handed_over = True  # the rest of the stream (the judgement) goes to the caller
                return StreamedReply(**{f.name: getattr(item, f.name) for f in fields(ReplyDone)}, rest=stream), item.content
            pieces.append(item)
            if time.monotonic() - last_flush >= FLUSH_SECONDS:
                last_flush = time.monotonic()
                async with state:
                    state.partial = "".join(pieces)
                    stopped = stop_requested()
                if stopped:
                    break
    finally:
        if not handed_over:
            await stream.aclose()  # on Stop this closes the model request and stores the partial reply
    return None, "".join(pieces)
