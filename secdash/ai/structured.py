"""Structured output: JSON validated with pydantic, with a repair path for models that break the format."""

from __future__ import annotations

import json
import re
from typing import TypeVar

from pydantic import BaseModel, ValidationError

from secdash.ai.base import LLMError

Model = TypeVar("Model", bound=BaseModel)
_FENCE = re.compile(r"```(?:json)?\s*(.*?)```", re.DOTALL)


def _candidates(text: str) -> list[str]:
    """The raw text, a fenced block, and the outermost {...} span, in that order."""
    found = [text.strip()]
    fence = _FENCE.search(text)
    if fence:
        found.append(fence.group(1).strip())
    start, end = text.find("{"), text.rfind("}")
    if 0 <= start < end:
        found.append(text[start:end + 1])
    return found


def parse_structured(text: str, schema: type[Model]) -> Model:
    """Validate a model's JSON answer, repairing common breakage; LLMError("format") when hopeless."""
    for candidate in _candidates(text or ""):
        try:
            return schema.model_validate(json.loads(candidate))
        except (json.JSONDecodeError, ValidationError):
            continue
    raise LLMError("format", "The AI model's answer was not in the expected format")
