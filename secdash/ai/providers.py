"""Choosing the provider: a configured OpenAI-compatible server, else the offline engine.

Only `secdash/services/agents/ai_calls.py` calls this: every model call goes through its instrumented wrapper."""

from __future__ import annotations

import asyncio

from secdash.ai.base import Provider
from secdash.ai.offline import OfflineEngine
from secdash.ai.openai_compatible import OpenAICompatibleProvider
from secdash.core.config import Settings

# One client per configuration and event loop: building one costs a TLS context (~20 ms), and its
# connection pool belongs to the loop that opened it.
_clients: dict[tuple, OpenAICompatibleProvider] = {}


def get_provider(settings: Settings) -> Provider:
    if not settings.llm_configured:
        return OfflineEngine()
    try:
        loop_id = id(asyncio.get_running_loop())
    except RuntimeError:
        loop_id = 0
    key = (settings.LLM_BASE_URL, settings.LLM_API_KEY, settings.LLM_MODEL, settings.LLM_TIMEOUT_SECONDS, loop_id)
    if key not in _clients:
        _clients[key] = OpenAICompatibleProvider(
            base_url=settings.LLM_BASE_URL or None,
            api_key=settings.LLM_API_KEY,
            model=settings.LLM_MODEL,
            timeout=settings.LLM_TIMEOUT_SECONDS,
        )
    return _clients[key]
