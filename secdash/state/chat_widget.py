"""The floating Defense Command chat widget of the shell: the user's persistent conversation."""

from __future__ import annotations

import reflex as rx

from secdash.ai.base import LLMError
from secdash.core.db import session_scope
from secdash.services import defense_chat
from secdash.services.errors import DomainError, RateLimited
from secdash.state.auth import AuthState, refusal_events
from secdash.state.chat_stream import ChatComposer, ChatLine, now_label, rate_limited_toast, stream_into


def _failed() -> rx.event.EventSpec:
    return rx.toast.error("Error", description="Failed to send message")


class ChatWidgetState(ChatComposer, AuthState):
    open: bool = False
    lines: list[ChatLine] = []
    sending: bool = False
    _stop: bool = False

    @rx.var
    def can_send(self) -> bool:
        return bool(self.draft.strip()) and not self.sending

    async def _load_history(self, user) -> None:
        async with session_scope() as session:
            rows = await defense_chat.conversation(session=session, user=user, surface="widget")
        self.lines = [
            ChatLine(id=str(row.id), sender="user" if row.role == "user" else "agent", text=row.content,
                     time=row.created_at.strftime("%H:%M:%S"), agent_id=row.agent_id,
                     threat_level=row.threat_level or "", engine=row.provider or "")
            for row in rows
        ]

    @rx.event
    async def toggle(self):
        user = await self._current_user()
        if user is None:
            return self._session_ended()
        self.open = not self.open
        if self.open:
            await self._load_history(user)
        return None

    @rx.event
    async def send(self, form_data: dict | None = None):
        """Send the draft (blank submits are ignored); the reply streams in."""
        if await self._current_user() is None:
            return self._session_ended()
        text = self.draft.strip()
        if not text or self.sending:
            return None
        if (refused := self._refusal(text)) is not None:
            return refused
        self.sending, self.partial, self._stop = True, "", False
        self.lines = [*self.lines, ChatLine(id=f"pending-{len(self.lines)}", text=text, time=now_label())]
        self.draft = ""
        self._arm_reply(text, "general")
        return ChatWidgetState.stream_reply

    @rx.event
    async def stop(self):
        if await self._current_user() is None:
            return self._session_ended()
        self._stop = True
        return None

    @rx.event(background=True)
    async def stream_reply(self):
        user = await self._current_user()
        if user is None:
            yield refusal_events()
            return
        armed = await self._take_armed_reply()
        if armed is None:
            return
        text, _agent_id = armed

        try:
            done, reply = await stream_into(self, user=user, text=text, agent_id="general", surface="widget",
                                            stop_requested=lambda: self._stop)
        except DomainError as exc:  # refused before anything was stored: give the text back
            async with self:
                self.sending, self.partial = False, ""
                self.lines = self.lines[:-1]
                self.draft = text
            yield rate_limited_toast(exc) if isinstance(exc, RateLimited) else _failed()
            return
        except LLMError:  # the question is stored; the model failed
            async with self:
                self.sending, self.partial = False, ""
            yield _failed()
            return
        async with self:
            if reply:
                self.lines = [*self.lines, ChatLine(
                    id=str(done.message_id) if done else f"stopped-{len(self.lines)}", sender="agent", text=reply,
                    time=now_label(), threat_level=done.threat_level if done else "",
                    engine=done.provider if done else "")][-defense_chat.HISTORY_LIMIT:]
            self.sending, self.partial = False, ""
