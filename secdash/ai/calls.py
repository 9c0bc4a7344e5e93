"""The one instrumented wrapper every model call goes through.

`AICalls` wraps a provider for one user, feature and agent. Each call (`stream` or `structured`)
- is admitted first by the `admit` callback (the per-user budget: it raises before anything starts),
- is timed: latency to the first piece of text and in total,
- ends as ok, error (with the LLMError's kind) or stopped (the consumer closed the stream), and
- is handed as a `CallRecord` to the `record` callback, which stores it and writes the audit entry.

The ai layer holds no database: `record` and `admit` are given by the service that builds the
wrapper (`secdash/services/agents/ai_calls.py`). A record carries no prompt and no reply: only their sizes.

A follow-up call (`follows=<id of a call this wrapper made>`, e.g. the threat judgement of a chat
reply) belongs to the call it follows: it is recorded with that `parent_id` but is not admitted
again (the user's request was counted once) and the recorder writes no second audit entry.
`admitted()` takes the budget for the next call ahead of time, so a service can refuse a request
before it stores anything.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Callable
from contextlib import AbstractAsyncContextManager, aclosing, asynccontextmanager, nullcontext
from dataclasses import dataclass
from typing import TypeVar

from pydantic import BaseModel

from secdash.ai.base import Done, Event, LLMError, Provider, Usage, event_text
from secdash.ai.tasks.base import Task

Schema = TypeVar("Schema", bound=BaseModel)


@dataclass(frozen=True)
class CallRecord:
    """What is kept of one model call: never its prompt or its reply."""

    feature: str
    task: str
    agent: str
    user_id: int | None
    provider: str
    model: str
    outcome: str  # ok | error | stopped
    total_ms: int
    first_token_ms: int | None = None
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    error_kind: str | None = None
    characters: int = 0  # of the answer (for the audit entry)
    parent_id: int | None = None


Recorder = Callable[[CallRecord], Awaitable[int | None]]  # stores the record, returns its id
Admission = Callable[[], AbstractAsyncContextManager[None]]  # raises (e.g. RateLimited) to refuse


def _ms(since: float) -> int:
    return int((time.monotonic() - since) * 1000)


class AICalls:
    """Model calls of one user for one feature and agent, admitted, timed and recorded."""

    def __init__(
        self, provider: Provider, *, feature: str, agent: str, user_id: int | None, record: Recorder, admit: Admission
    ) -> None:
        self.provider = provider
        self.feature, self.agent, self.user_id = feature, agent, user_id
        self._record, self._admit = record, admit
        self._reserved = 0  # admissions taken by `admitted()` for the next calls
        self._call_ids: set[int] = set()

    @property
    def name(self) -> str:
        return self.provider.name

    @property
    def model(self) -> str:
        return self.provider.model

    @asynccontextmanager
    async def admitted(self) -> AsyncIterator[None]:
        """Take the budget for the next call now (refused here, before the caller does anything)."""
        async with self._admit():
            self._reserved += 1
            try:
                yield
            finally:
                self._reserved = max(self._reserved - 1, 0)

    def _admission(self, follows: int | None) -> AbstractAsyncContextManager[None]:
        if follows is not None:
            if follows not in self._call_ids:
                raise ValueError("a follow-up call must follow a call of this wrapper")
            return nullcontext()
        if self._reserved:
            self._reserved -= 1  # this call uses the budget taken by `admitted()`
            return nullcontext()
        return self._admit()

    async def _store(
        self,
        task: Task,
        outcome: str,
        started: float,
        *,
        first: float | None = None,
        usage: Usage | None = None,
        error: LLMError | None = None,
        characters: int = 0,
        follows: int | None = None,
    ) -> int | None:
        record = CallRecord(
            feature=self.feature,
            task=task.kind,
            agent=self.agent,
            user_id=self.user_id,
            provider=self.provider.name,
            model=self.provider.model,
            outcome=outcome,
            total_ms=_ms(started),
            first_token_ms=int((first - started) * 1000) if first is not None else None,
            prompt_tokens=usage.prompt_tokens if usage else None,
            completion_tokens=usage.completion_tokens if usage else None,
            error_kind=error.kind if error else None,
            characters=characters,
            parent_id=follows,
        )
        call_id = await self._record(record)
        if call_id is not None:
            self._call_ids.add(call_id)
        return call_id

    async def stream(self, task: Task, *, follows: int | None = None) -> AsyncGenerator[Event, None]:
        """The provider's events; the last is `Done` carrying this call's record id. Closing the
        generator early closes the upstream request and records the call as stopped."""
        async with self._admission(follows):
            started = time.monotonic()
            first: float | None = None
            usage: Usage | None = None
            characters = 0
            finish = "stop"
            try:
                async with aclosing(self.provider.stream(task)) as events:
                    async for event in events:
                        if isinstance(event, Done):
                            finish = event.finish_reason
                            break
                        if isinstance(event, Usage):
                            usage = event
                        text = event_text(event)
                        if text:
                            first = first or time.monotonic()
                            characters += len(text)
                        yield event
            except LLMError as exc:
                await self._store(
                    task, "error", started, first=first, usage=usage, error=exc, characters=characters, follows=follows
                )
                raise
            except (GeneratorExit, asyncio.CancelledError):
                await asyncio.shield(
                    self._store(task, "stopped", started, first=first, usage=usage, characters=characters, follows=follows)
                )
                raise
            except Exception:
                await self._store(
                    task,
                    "error",
                    started,
                    first=first,
                    usage=usage,
                    error=LLMError("internal", "internal error"),
                    characters=characters,
                    follows=follows,
                )
                raise
            call_id = await self._store(task, "ok", started, first=first, usage=usage, characters=characters, follows=follows)
        yield Done(finish_reason=finish, call_id=call_id)

    async def structured(self, task: Task, schema: type[Schema], *, follows: int | None = None) -> Schema:
        """One object validated against `schema` (LLMError("format") when the answer cannot be made to fit)."""
        async with self._admission(follows):
            started = time.monotonic()
            try:
                result = await self.provider.structured(task, schema)
            except LLMError as exc:
                await self._store(task, "error", started, error=exc, follows=follows)
                raise
            except asyncio.CancelledError:
                await asyncio.shield(self._store(task, "stopped", started, follows=follows))
                raise
            except Exception:
                await self._store(task, "error", started, error=LLMError("internal", "internal error"), follows=follows)
                raise
            await self._store(
                task, "ok", started, usage=result.usage, characters=len(result.value.model_dump_json()), follows=follows
            )
        return result.value
