"""The Defense Command page and the Defense Command Center: chats with the platform agents."""

from __future__ import annotations

import random

import reflex as rx

from secdash.ai.agents import AGENTS, PLATFORM_AGENT_IDS
from secdash.ai.base import LLMError
from secdash.models import UserPublic
from secdash.services.agents import agents
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

CENTER_FAILURE_TEXT = "Defense protocols active. Continuing security operations."
HIGH_LEVELS = ("high", "critical")


class DefenseCommandState(ChatComposer, AuthState):
    """/defense-command: pick a system, chat with it; switching clears the conversation."""

    selected: str = ""
    lines: list[ChatLine] = []

    @rx.var
    def selected_name(self) -> str:
        agent = AGENTS.get(self.selected)
        return agent.platform if agent else ""

    @protected(reads_only=True)
    async def select(self, agent_id: str):
        if agent_id in PLATFORM_AGENT_IDS and agent_id != self.selected and not self.streaming:
            self.selected, self.lines, self.partial = agent_id, [], ""
        return None

    @protected
    async def send(self, form_data: dict | None = None):
        """Nothing is sent when the text is blank, no system is selected, or a reply is pending."""
        text = self.draft.strip()
        if not text or not self.selected or self.streaming:
            return None
        if (refused := self._refusal(text)) is not None:
            return refused
        self.lines = [*self.lines, ChatLine(id=f"u{len(self.lines)}", text=text, time=now_label(), agent_id=self.selected)]
        self.draft, self.partial = "", ""
        return self._start_stream(DefenseCommandState.stream_reply, text=text, agent_id=self.selected)

    @protected_stream
    async def stream_reply(self, user: UserPublic, text: str, agent_id: str):
        try:
            done, reply = await stream_into(
                self, user=user, text=text, agent_id=agent_id, surface="command", stop_requested=lambda: self.selected != agent_id
            )
        except (DomainError, LLMError) as exc:  # spec: on error the wait ends silently (a quota says why)
            async with self:
                self.partial = ""
                self._end_stream()
            if isinstance(exc, RateLimited):
                yield rate_limited_toast(exc)
            return
        async with self:
            if reply and self.selected == agent_id:
                self.lines = [
                    *self.lines,
                    ChatLine(
                        id=f"a{len(self.lines)}",
                        sender="agent",
                        text=reply,
                        time=now_label(),
                        agent_id=agent_id,
                        engine=done.provider if done else "",
                    ),
                ]
            self.partial = ""
            self._end_stream()
        if done is not None:  # the threat judgement is stored (this page shows no level), composer already free
            await done.judged_level()


class DefenseCenterState(ChatComposer, AuthState):
    """/defense-command/center: one chat per agent kept on the page, threat badges, metrics."""

    selected: str = "stock"
    chats: dict[str, list[ChatLine]] = {agent_id: [] for agent_id in PLATFORM_AGENT_IDS}
    statuses: dict[str, str] = {}
    threats_blocked: dict[str, int] = {}
    # Placeholder figures (spec: random), always marked as simulated in the UI.
    connections: int = 0
    cpu_percent: int = 0

    @rx.var
    def current_lines(self) -> list[ChatLine]:
        return self.chats.get(self.selected, [])

    def _refresh_metrics(self) -> None:
        self.connections = random.randint(500, 1500)  # noqa: S311  (display placeholder, marked simulated)
        self.cpu_percent = random.randint(40, 70)  # noqa: S311

    @protected(reads_only=True)
    async def load(self):
        records = await in_session(agents.with_threats_blocked)
        self.statuses = {r.id: r.status for r, _blocked in records}
        self.threats_blocked = {r.id: blocked for r, blocked in records}
        self._refresh_metrics()
        return None

    @protected(reads_only=True)
    async def select(self, agent_id: str):
        if agent_id in PLATFORM_AGENT_IDS and not self.streaming:
            self.selected = agent_id
        return None

    @protected
    async def send(self, form_data: dict | None = None):
        text = self.draft.strip()
        if not text or self.streaming:
            return None
        if (refused := self._refusal(text)) is not None:
            return refused
        agent_id = self.selected
        line = ChatLine(id=f"u{len(self.chats[agent_id])}", text=text, time=now_label(), agent_id=agent_id)
        self.chats = {**self.chats, agent_id: [*self.chats[agent_id], line]}
        self.draft, self.partial = "", ""
        return self._start_stream(DefenseCenterState.stream_reply, text=text, agent_id=agent_id)

    @protected
    async def stop(self):
        self._request_stop()
        return None

    def _add_agent_line(self, agent_id: str, text: str, threat_level: str = "", engine: str = "") -> None:
        lines = self.chats[agent_id]
        line = ChatLine(
            id=f"a{len(lines)}",
            sender="agent",
            text=text,
            time=now_label(),
            agent_id=agent_id,
            threat_level=threat_level,
            engine=engine,
        )
        self.chats = {**self.chats, agent_id: [*lines, line]}

    @protected_stream
    async def stream_reply(self, user: UserPublic, text: str, agent_id: str):
        try:
            done, reply = await stream_into(
                self, user=user, text=text, agent_id=agent_id, surface="center", stop_requested=lambda: self._stop_requested
            )
        except (DomainError, LLMError) as exc:
            async with self:
                self._add_agent_line(agent_id, CENTER_FAILURE_TEXT)
                self.partial = ""
                self._end_stream()
            if isinstance(exc, RateLimited):
                yield rate_limited_toast(exc)
            return
        level = done.threat_level if done else ""
        line_id = ""
        async with self:
            if reply:
                line_id = f"a{len(self.chats[agent_id])}"
                self._add_agent_line(agent_id, reply, level, done.provider if done else "")
            self.partial = ""
            self._end_stream()
            self._refresh_metrics()
        if done is not None:  # the engine's threat judgement comes after the composer is free
            level = await done.judged_level()
            if level != done.threat_level and line_id:
                async with self:
                    self.chats = {**self.chats, agent_id: with_threat_level(self.chats[agent_id], line_id, level)}
        if level in HIGH_LEVELS:
            yield toast.error(
                "⚠️ High Threat Detected", description=f"{AGENTS[agent_id].name} is actively defending against threats"
            )
