"""The one interface every AI feature uses, and its errors."""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass
from typing import Protocol


@dataclass(frozen=True)
class ChatTurn:
    role: str  # "user" | "assistant"
    content: str


class LLMError(Exception):
    """A model call failed; `message` is safe to show (no stack trace, no secret)."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind  # timeout | auth | rate_limit | server | connection | format | bad_request
        self.message = message


class ChatProvider(Protocol):
    """Streams a reply. A provider that sets `reads_situation = True` also takes `situation=` (the agent's
    live facts, `secdash.ai.situation.Situation`); the others get those facts in `system`."""

    name: str
    model: str

    def stream_chat(
        self, turns: Sequence[ChatTurn], *, agent_id: str = "general", system: str = ""
    ) -> AsyncIterator[str]: ...
