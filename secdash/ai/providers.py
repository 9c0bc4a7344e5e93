"""Choosing the provider: a configured OpenAI-compatible server, else the offline engine."""

from __future__ import annotations

from secdash.ai.base import ChatProvider
from secdash.ai.offline import OfflineEngine
from secdash.ai.openai_compatible import OpenAICompatibleProvider
from secdash.core.config import Settings


def get_provider(settings: Settings) -> ChatProvider:
    if settings.llm_configured:
        return OpenAICompatibleProvider(
            base_url=settings.LLM_BASE_URL or None, api_key=settings.LLM_API_KEY, model=settings.LLM_MODEL,
            timeout=settings.LLM_TIMEOUT_SECONDS,
        )
    return OfflineEngine()
