"""Provider for any OpenAI-compatible server (OpenAI, Ollama, vLLM, LM Studio) via the openai SDK."""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence

import openai

from secdash.ai.base import ChatTurn, LLMError


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


class OpenAICompatibleProvider:
    name = "openai-compatible"

    def __init__(self, *, base_url: str | None, api_key: str, model: str, timeout: float) -> None:
        self.model = model
        self.timeout = timeout
        # max_retries=0: a slow or failing model is reported, not silently retried for minutes.
        self.client = openai.AsyncOpenAI(
            base_url=base_url or None, api_key=api_key or "not-needed", timeout=timeout, max_retries=0
        )

    async def stream_chat(
        self, turns: Sequence[ChatTurn], *, agent_id: str = "general", system: str = ""
    ) -> AsyncIterator[str]:
        """Yield the reply as it arrives; closing this generator closes the upstream request."""
        messages = ([{"role": "system", "content": system}] if system else []) + [
            {"role": turn.role, "content": turn.content} for turn in turns
        ]
        try:
            stream = await self.client.chat.completions.create(model=self.model, messages=messages, stream=True)
        except Exception as exc:
            raise _error(exc, self.timeout) from None
        try:
            async for chunk in stream:
                if chunk.choices and chunk.choices[0].delta and chunk.choices[0].delta.content:
                    yield chunk.choices[0].delta.content
        except openai.OpenAIError as exc:
            raise _error(exc, self.timeout) from None
        finally:
            await stream.close()  # also when the consumer stops early: the HTTP request is closed

    async def complete_json(self, turns: Sequence[ChatTurn], *, system: str = "") -> str:
        """One non-streamed reply asking for a JSON object (parsed and repaired by the caller)."""
        messages = ([{"role": "system", "content": system}] if system else []) + [
            {"role": turn.role, "content": turn.content} for turn in turns
        ]
        try:
            response = await self.client.chat.completions.create(
                model=self.model, messages=messages, response_format={"type": "json_object"}
            )
        except Exception as exc:
            raise _error(exc, self.timeout) from None
        return response.choices[0].message.content or ""
