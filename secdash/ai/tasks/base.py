"""What a task is: the messages a model gets, and what the offline engine answers instead."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import ClassVar, TypeVar

from pydantic import BaseModel

from secdash.ai.base import ChatTurn, LLMError

Schema = TypeVar("Schema", bound=BaseModel)


class Task(ABC):
    """One piece of AI work. Subclasses are small dataclasses holding their inputs."""

    kind: ClassVar[str]  # recorded with every call ("chat", "threat", ...)
    files: ClassVar[bool] = False  # the text output is several files (secdash/ai/files.py format)
    default_file: ClassVar[str | None] = None  # with `files`: a ```html fence that names no file is this file
    agent_id: str = "general"

    @abstractmethod
    def system(self) -> str:
        """The system prompt: persona, rules, and (as data, not instructions) the facts it may use."""

    @abstractmethod
    def turns(self) -> Sequence[ChatTurn]:
        """The conversation to answer, oldest first, the request last."""

    def messages(self, *, extra_system: str = "") -> list[dict[str, str]]:
        """The OpenAI-style messages: the system prompt (plus `extra_system`), then the turns."""
        system = "\n\n".join(part for part in (self.system(), extra_system) if part)
        return ([{"role": "system", "content": system}] if system else []) + [
            {"role": turn.role, "content": turn.content} for turn in self.turns()
        ]

    def offline_text(self) -> str:
        """The offline engine's answer to stream (deterministic: same inputs, same text)."""
        raise LLMError("bad_request", f"The offline engine cannot write a {self.kind} answer")

    def offline_structured(self, schema: type[Schema]) -> Schema:
        """The offline engine's structured answer (deterministic)."""
        raise LLMError("bad_request", f"The offline engine cannot produce a {self.kind} object")
