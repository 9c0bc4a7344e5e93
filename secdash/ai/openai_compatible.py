"""Provider for any OpenAI-compatible server (OpenAI, Ollama, vLLM, LM Studio) via the openai SDK."""

from __future__ import annotations

from collections.abc import AsyncGenerator
from typing import TYPE_CHECKING, TypeVar, cast

import openai
from openai.types.chat import ChatCompletionMessageParam
from openai.types.shared_params import ResponseFormatJSONSchema
from pydantic import BaseModel

from secdash.ai.base import Done, Event, LLMError, Structured, TextDelta, Usage
from secdash.ai.files import FORMAT_INSTRUCTIONS, FileStreamParser
from secdash.ai.structured import parse_structured, response_format, schema_instructions

if TYPE_CHECKING:
    from secdash.ai.tasks.base import Task

Schema = TypeVar("Schema", bound=BaseModel)


def _chat_messages(messages: list[dict[str, str]]) -> list[ChatCompletionMessageParam]:
    """Task.messages() as the SDK's message type: every dict has a role (system, user or assistant) and a content."""
    return cast("list[ChatCompletionMessageParam]", messages)


def _error(exc: Exception, timeout: float) -> LLMError:
    """Map SDK errors to short messages a user may see (no stack traces, no keys)."""
    if isinstance(exc, openai.APITimeoutError):
        return LLMError("timeout", f"The AI model did not answer within {timeout:g} s")
    if isinstance(exc, openai.AuthenticationError | openai.PermissionDeniedError):
        return LLMError("auth", "The AI model refused the API key")
    if isinstance(exc, openai.RateLimitError):
        return LLMError("rate_limit", "The AI model is rate-limiting requests; try again shortly")
    if isinstance(exc, openai.APIConnectionError):
        return LLMError("connection", "The AI model server cannot be reached")
    if isinstance(exc, openai.APIStatusError):
        if exc.status_code >= 500:
            return LLMError("server", f"The AI model server failed (HTTP {exc.status_code})")
        return LLMError("bad_request", f"The AI model rejected the request (HTTP {exc.status_code})")
    return LLMError("server", f"The AI model call failed ({type(exc).__name__})")


def _usage(usage: object | None) -> Usage | None:
    if usage is None:
        return None
    return Usage(prompt_tokens=getattr(usage, "prompt_tokens", None), completion_tokens=getattr(usage, "completion_tokens", None))


def _unsupported(exc: Exception) -> bool:
    """The server refused an optional request feature (400/404/422), not the key or its health."""
    return isinstance(exc, openai.BadRequestError | openai.NotFoundError | openai.UnprocessableEntityError)


class OpenAICompatibleProvider:
    name = "openai-compatible"

    def __init__(self, *, base_url: str | None, api_key: str, model: str, timeout: float) -> None:
        self.model = model
        self.timeout = timeout
        # max_retries=0: a slow or failing model is reported, not silently retried for minutes.
        self.client = openai.AsyncOpenAI(
            base_url=base_url or None, api_key=api_key or "not-needed", timeout=timeout, max_retries=0
        )
        # Learned per client: servers without these refuse them with HTTP 400 once, then are not asked again.
        self.stream_usage = True  # stream_options={"include_usage": True}
        self.json_schema = True  # response_format={"type": "json_schema", ...}

    async def _open_stream(self, task_messages: list[dict[str, str]]):
        messages = _chat_messages(task_messages)
        if self.stream_usage:
            try:
                return await self.client.chat.completions.create(
                    model=self.model, messages=messages, stream=True, stream_options={"include_usage": True}
                )
            except Exception as exc:
                if not _unsupported(exc):
                    raise _error(exc, self.timeout) from None
        try:
            stream = await self.client.chat.completions.create(model=self.model, messages=messages, stream=True)
        except Exception as exc:
            raise _error(exc, self.timeout) from None
        self.stream_usage = False  # refused with it, accepted without it
        return stream

    async def stream(self, task: Task) -> AsyncGenerator[Event, None]:
        """The answer as events as it arrives; closing this generator closes the upstream request."""
        stream = await self._open_stream(task.messages(extra_system=FORMAT_INSTRUCTIONS if task.files else ""))
        parser = FileStreamParser(task.default_file) if task.files else None
        usage: Usage | None = None
        finish = "stop"
        try:
            async for chunk in stream:
                if chunk.usage is not None:
                    usage = _usage(chunk.usage)
                if not chunk.choices:
                    continue
                choice = chunk.choices[0]
                finish = choice.finish_reason or finish
                text = choice.delta.content if choice.delta else None
                if not text:
                    continue
                if parser is None:
                    yield TextDelta(text)
                else:
                    for event in parser.feed(text):
                        yield event
        except openai.OpenAIError as exc:
            raise _error(exc, self.timeout) from None
        finally:
            await stream.close()  # also when the consumer stops early: the HTTP request is closed
        for event in parser.close() if parser else ():
            yield event
        if usage is not None:
            yield usage
        yield Done(finish_reason=finish)

    async def structured(self, task: Task, schema: type[Schema]) -> Structured[Schema]:
        """One object: the server's JSON-schema mode where it works, else plain generation told the schema;
        either way the text is parsed, repaired if needed, and validated (LLMError("format") if hopeless)."""
        response = None
        if self.json_schema:
            try:
                response = await self.client.chat.completions.create(
                    model=self.model,
                    messages=_chat_messages(task.messages()),
                    response_format=cast(ResponseFormatJSONSchema, response_format(schema)),
                )
            except Exception as exc:
                if not _unsupported(exc):
                    raise _error(exc, self.timeout) from None
        if response is None:
            try:
                response = await self.client.chat.completions.create(
                    model=self.model, messages=_chat_messages(task.messages(extra_system=schema_instructions(schema)))
                )
            except Exception as exc:
                raise _error(exc, self.timeout) from None
            self.json_schema = False  # refused with the schema mode, accepted without it
        content = response.choices[0].message.content if response.choices else ""
        return Structured(parse_structured(content or "", schema), _usage(response.usage))
