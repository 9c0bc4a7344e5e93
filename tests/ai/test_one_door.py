"""Every model call goes through the instrumented wrapper: outside secdash/ai, only
services/agents/ai_calls.py reaches an engine, and only ai/openai_compatible.py speaks to the openai SDK."""

from __future__ import annotations

import re
from pathlib import Path

import secdash

ROOT = Path(secdash.__file__).parent
ENGINE = re.compile(
    r"\b(get_provider|OpenAICompatibleProvider|OfflineEngine)\b|secdash\.ai\.(providers|offline|"
    r"openai_compatible)\b"
)
SDK = re.compile(r"^\s*(import openai|from openai\b)", re.MULTILINE)


def _sources():
    for path in sorted(ROOT.rglob("*.py")):
        yield path.relative_to(ROOT).as_posix(), path.read_text(encoding="utf-8")


def test_only_the_ai_calls_service_reaches_an_engine():
    offenders = [
        name
        for name, text in _sources()
        if ENGINE.search(text) and not name.startswith("ai/") and name != "services/agents/ai_calls.py"
    ]
    assert offenders == []


def test_only_the_openai_compatible_provider_uses_the_sdk():
    assert [name for name, text in _sources() if SDK.search(text)] == ["ai/openai_compatible.py"]
