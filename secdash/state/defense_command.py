"""The Defense Command page and the Defense Command Center: chats with the platform agents."""

from __future__ import annotations

import random

import reflex as rx

from secdash.ai.agents import AGENTS, PLATFORM_AGENT_IDS
from secdash.ai.base import LLMError
from secdash.core.db import session_scope
from secdash.services import agents
from secdash.services.errors import DomainError, RateLimited
from secdash.state.auth import AuthState, refusal_events
from secdash.state.chat_stream import ChatComposer, ChatLine, now_label, rate_limited_toast, stream_into

CENTER_FAILURE_TEXT = "Defense protocols active. Continuing security operations."
HIGH_LEVELS = ("high", "critical")


class DefenseCommandState(ChatComposer, AuthState):
    """/defense-command: pick a system, chat with it; switching clears the conversation."""

    selected: str = ""
    lines: list[ChatLine] = []
    waiting: bool = False

    @rx.var
    def selected_name(self) -> str:
        agent = AGENTS.get(self.selected)
        return agent.platform if agent else ""

    @rx.event
    async def select(self, agent_id: str):
        if await self._current_user() is None:
            return self._session_ended()
        if agent_id in PLATFORM_AGENT_IDS and agent_id != self.selected and not self.waiting:
            self.selected, self.lines, self.partial = agent_id, [], ""
        return None

    @rx.event
    async def send(self, form_data: dict | None = None):
        """Nothing is sent when the text is blank, no system is selected, or a reply is pending."""
        if await self._current_user() is None:
            return self._session_ended()
        text = self.draft.strip()
        if not text or not self.selected or self.waiting:
            return None
        if (refused := self._refusal(text)) is not None:
            return refused
        self.lines = [*self.lines, ChatLine(id=f"u{len(self.lines)}", text=text, time=now_label(), agent_id=self.selected)]
        self.draft, self.waiting, self.partial = "", True, ""
        self._arm_reply(text, self.selected)
        return DefenseCommandState.stream_reply

    @rx.event(background=True)
    async def stream_reply(self):
        user = await self._current_user()
        if user is None:
            yield refusal_events()
            return
        armed = await self._take_armed_reply()
        if armed is None:
            return
        text, agent_id = armed
        try:
            done, reply = await stream_into(self, user=user, text=text, agent_id=agent_id, surface="command",
                                            stop_requested=lambda: self.selected != agent_id)
        except (DomainError, LLMError) as exc:  # spec: on error the wait ends silently (a quota says why)
            async with self:
                self.waiting, self.partial = False, ""
            if isinstance(exc, RateLimited):
                yield rate_limited_toast(exc)
            return
        async with self:
            if reply and self.selected == agent_id:
                self.lines = [*self.lines, ChatLine(id=f"a{len(self.lines)}", sender="agent", text=reply, time=now_label(),
                                                    agent_id=agent_id, engine=done.provider if done else "")]
            self.waiting, self.partial = False, ""


class DefenseCenterState(ChatComposer, AuthState):
    """/defense-command/center: one chat per agent kept on the page, threat badges, metrics."""

    selected: str = "stock"
    chats: dict[str, list[ChatLine]] = {agent_id: [] for agent_id in PLATFORM_AGENT_IDS}
    waiting: bool = False
    statuses: dict[str, str] = {}
    threats_blocked: dict[str, int] = {}
    # Placeholder figures (spec: random), always marked as simulated in the UI.
    connections: int = 0
    cpu_percent: int = 0
    _stop: bool = False

    @rx.var
    def current_lines(self) -> list[ChatLine]:
        return self.chats.get(self.selected, [])

    def _refresh_metrics(self) -> None:
        self.connections = random.randint(500, 1500)  # noqa: S311  (display placeholder, marked simulated)
        self.cpu_percent = random.randint(40, 70)  # noqa: S311

    @rx.event
    async def load(self):
        if await self._current_user() is None:
            return self._session_ended()
        async with session_scope() as session:
            records = await agents.list_agents(session=session)
        self.statuses = {r.id: r.status for r in records}
        self.threats_blocked = {r.id: r.threats_blocked for r in records}
        self._refresh_metrics()
        return None

    @rx.event
    async def select(self, agent_id: str):
        if await self._current_user() is None:
            return self._session_ended()
        if agent_id in PLATFORM_AGENT_IDS and not self.waiting:
            self.selected = agent_id
        return None

    @rx.event
    async def send(self, form_data: dict | None = None):
        if await self._current_user() is None:
            return self._session_ended()
        text = self.draft.strip()
        if not text or self.waiting:
            return None
        if (refused := self._refusal(text)) is not None:
            return refused
        agent_id = self.selected
        line = ChatLine(id=f"u{len(self.chats[agent_id])}", text=text, time=now_label(), agent_id=agent_id)
        self.chats = {**self.chats, agent_id: [*self.chats[agent_id], line]}
        self.draft, self.waiting, self.partial, self._stop = "", True, "", False
        self._arm_reply(text, agent_id)
        return DefenseCenterState.stream_reply

    @rx.event
    async def stop(self):
        if await self._current_user() is None:
            return self._session_ended()
        self._stop = True
        return None

    def _add_agent_line(self, agent_id: str, text: str, threat_level: str = "", engine: str = "") -> None:
        lines = self.chats[agent_id]
        line = ChatLine(id=f"a{len(lines)}", sender="agent", text=text, time=now_label(), agent_id=agent_id,
                        threat_level=threat_level, engine=engine)
        self.chats = {**self.chats, agent_id: [*lines, line]}

    @rx.event(background=True)
    async def stream_reply(self):
        user = await self._current_user()
        if user is None:
            yield refusal_events()
            return
        armed = await self._take_armed_reply()
        if armed is None:
            return
        text, agent_id = armed
        try:
            done, reply = await stream_into(self, user=user, text=text, agent_id=agent_id, surface="center",
                                            stop_requested=lambda: self._stop)
        except (DomainError, LLMError) as exc:
            async with self:
                self._add_agent_line(agent_id, CENTER_FAILURE_TEXT)
                self.waiting, self.partial = False, ""
            if isinstance(exc, RateLimited):
                yield rate_limited_toast(exc)
            return
        level = done.threat_level if done else ""
        async with self:
            if reply:
                self._add_agent_line(agent_id, reply, level, done.provider if done else "")
            self.waiting, self.partial = False, ""
            self._refresh_metrics()
        if level in HIGH_LEVELS:
            yield rx.toast.error("⚠️ High Threat Detected",
                                 description=f"{AGENTS[agent_id].name} is actively defending against threats")
