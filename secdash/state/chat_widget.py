"""The floating Defense Command chat widget of the shell: the user's persistent conversation."""

from __future__ import annotations

import reflex as rx

from secdash.ai.base import LLMError
from secdash.models import UserPublic
from secdash.services.agents import defense_chat
from secdash.services.errors import DomainError, RateLimited
from secdash.services.scoped import in_session
from secdash.state.auth import AuthState
from secdash.state.base import protected, protected_stream
from secdash.state.browser_actions import toast
from secdash.state.chat_stream import (
    ChatComposer,
    ChatLine,
    now_label,
    rate_limited_toast,
    stream_into,
    with_threat_level,
)

INPUT_ID = "widget-input"
TOGGLE_ID = "defense-chat-toggle"


def _failed() -> rx.event.EventSpec:
    return toast.error("Error", description="Failed to send message")


class ChatWidgetState(ChatComposer, AuthState):
    open: bool = False
    lines: list[ChatLine] = []

    @rx.var
    def can_send(self) -> bool:
        return bool(self.draft.strip()) and not self.streaming

    async def _load_history(self, user: UserPublic) -> None:
        rows = await in_session(defense_chat.conversation, user=user, surface="widget")
        self.lines = [
            ChatLine(
                id=str(row.id),
                sender="user" if row.role == "user" else "agent",
                text=row.content,
                time=row.created_at.strftime("%H:%M:%S"),
                agent_id=row.agent_id,
                threat_level=row.threat_level or "",
                engine=row.provider or "",
            )
            for row in rows
        ]

    @protected(reads_only=True)
    async def toggle(self, user: UserPublic):
        """Open (the focus goes to the composer) or close the panel."""
        self.open = not self.open
        if self.open:
            await self._load_history(user)
            return rx.set_focus(INPUT_ID)
        return None

    @protected(reads_only=True)
    async def close(self):
        """A page with its own chat is showing: the widget closes (it would cover that chat)."""
        self.open = False
        return None

    @protected
    async def send(self, form_data: dict | None = None):
        """Send the draft (blank submits are ignored); the reply streams in. Refused while one streams."""
        text = self.draft.strip()
        if not text or self.streaming:
            return None
        if (refused := self._refusal(text)) is not None:
            return refused
        self.partial = ""
        self.lines = [*self.lines, ChatLine(id=f"pending-{len(self.lines)}", text=text, time=now_label())]
        self.draft = ""
        return self._start_stream(ChatWidgetState.stream_reply, text=text)

    @protected
    async def stop(self):
        self._request_stop()
        return None

    @protected_stream
    async def stream_reply(self, user: UserPublic, text: str):
        try:
            done, reply = await stream_into(
                self, user=user, text=text, agent_id="general", surface="widget", stop_requested=lambda: self._stop_requested
            )
        except DomainError as exc:  # refused before anything was stored: give the text back
            async with self:
                self.partial = ""
                self.lines = self.lines[:-1]
                self.draft = text
                self._end_stream()
            yield rate_limited_toast(exc) if isinstance(exc, RateLimited) else _failed()
            return
        except LLMError:  # the question is stored; the model failed
            async with self:
                self.partial = ""
                self._end_stream()
            yield _failed()
            return
        async with self:
            if reply:
                self.lines = [
                    *self.lines,
                    ChatLine(
                        id=str(done.message_id) if done else f"stopped-{len(self.lines)}",
                        sender="agent",
                        text=reply,
                        time=now_label(),
                        threat_level=done.threat_level if done else "",
                        engine=done.provider if done else "",
                    ),
                ][-defense_chat.HISTORY_LIMIT :]
            self.partial = ""
            self._end_stream()
        if done is not None:  # the engine's threat judgement comes after the composer is free
            level = await done.judged_level()
            if level != done.threat_level:
                async with self:
                    self.lines = with_threat_level(self.lines, str(done.message_id), level)
