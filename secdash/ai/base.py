"""The one provider interface every AI feature uses (both engines), its typed events and its errors.

A provider does two things with a task (`secdash.ai.tasks`: who speaks, what it is asked, how it
answers without a model):

- `stream(task)`: the answer as typed events: `TextDelta` pieces of text; for a task whose output is
  several files (`task.files`), `FileStart` / `FileContent` / `FileEnd` (parsed from the text by
  `secdash.ai.files`); `Usage` when the server reports token counts; and `Done` last.
- `structured(task, schema)`: one object validated against a pydantic schema.

Callers never call a provider directly: every call goes through `secdash.ai.calls.AICalls`, which
records it (tokens, latency, outcome) and counts it against the user's budget.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Generic, Protocol, TypeVar

from pydantic import BaseModel

if TYPE_CHECKING:
    from secdash.ai.tasks.base import Task

Schema = TypeVar("Schema", bound=BaseModel)


@dataclass(frozen=True)
class ChatTurn:
    role: str  # "user" | "assistant"
    content: str


class LLMError(Exception):
    """A model call failed; `message` is safe to show (no stack trace, no secret)."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind  # timeout | auth | rate_limit | server | connection | format | bad_request | internal
        self.message = message


# --- events -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class TextDelta:
    """A piece of the answer's text (outside any file)."""

    text: str


@dataclass(frozen=True)
class FileStart:
    """A file of a multi-file answer begins (`path` is relative, without `..`)."""

    path: str


@dataclass(frozen=True)
class FileContent:
    """A piece of the current file's content."""

    path: str
    text: str


@dataclass(frozen=True)
class FileEnd:
    """The file is complete (`complete=False`: the answer ended inside it, e.g. cut at the token limit)."""

    path: str
    complete: bool = True


@dataclass(frozen=True)
class Usage:
    """Token counts as the server reports them (None where it does not)."""

    prompt_tokens: int | None = None
    completion_tokens: int | None = None


@dataclass(frozen=True)
class Done:
    """The last event. `call_id` is the AI call record's id, set by the instrumented wrapper."""

    finish_reason: str = "stop"
    call_id: int | None = None


Event = TextDelta | FileStart | FileContent | FileEnd | Usage | Done


@dataclass(frozen=True)
class Structured(Generic[Schema]):
    """A structured answer and the tokens it cost (when reported)."""

    value: Schema
    usage: Usage | None = None


class Provider(Protocol):
    """An engine: the OpenAI-compatible client or the offline engine."""

    name: str
    model: str

    def stream(self, task: Task) -> AsyncGenerator[Event, None]: ...

    async def structured(self, task: Task, schema: type[Schema]) -> Structured[Schema]: ...


def event_text(event: Event) -> str:
    """The answer text an event carries ('' for markers, usage and done)."""
    if isinstance(event, TextDelta | FileContent):
        return event.text
    return ""
