"""Structured output: the JSON-schema request for servers that support it, and for the others (or a
model that still wraps its answer) a repair path: fenced or prose-wrapped or slightly broken JSON
is repaired with `json-repair`, then validated with pydantic. Hopeless or invalid answers raise
LLMError("format") with a message fit to show."""

from __future__ import annotations

import json
import re
from typing import Any, TypeVar

import json_repair
from pydantic import BaseModel, ValidationError

from secdash.ai.base import LLMError

Model = TypeVar("Model", bound=BaseModel)
_FENCE = re.compile(r"```(?:json|JSON)?\s*(.*?)```", re.DOTALL)
FORMAT_MESSAGE = "The AI model's answer was not in the expected format"


def response_format(schema: type[BaseModel]) -> dict[str, Any]:
    """The `response_format` of the OpenAI JSON-schema mode (not strict: optional fields keep defaults); the SDK's
    type for it is applied in openai_compatible.py, the one module that imports the SDK."""
    return {
        "type": "json_schema",
        "json_schema": {"name": schema.__name__, "schema": schema.model_json_schema(), "strict": False},
    }


def schema_instructions(schema: type[BaseModel]) -> str:
    """What a server without JSON-schema mode is told instead (appended to the system prompt)."""
    return "Answer only with one JSON object that matches this JSON schema, without any other text:\n" + json.dumps(
        schema.model_json_schema(), separators=(",", ":")
    )


def _candidates(text: str) -> list[str]:
    """The raw text, a fenced block, and the outermost {...} span, in that order."""
    found = [text.strip()]
    fence = _FENCE.search(text)
    if fence:
        found.append(fence.group(1).strip())
    start, end = text.find("{"), text.rfind("}")
    if 0 <= start < end:
        found.append(text[start : end + 1])
    if start >= 0:
        found.append(text[start:])  # an object cut short: json-repair closes it
    return found


def parse_structured(text: str, schema: type[Model]) -> Model:
    """Validate a model's JSON answer, repairing common breakage; LLMError("format") when hopeless."""
    problem: ValidationError | None = None
    for candidate in _candidates(text or ""):
        try:
            return schema.model_validate(json.loads(candidate))
        except json.JSONDecodeError:
            pass
        except ValidationError as exc:
            problem = exc
            continue
        repaired = json_repair.loads(candidate)
        if not isinstance(repaired, dict) or not repaired:
            continue
        try:
            return schema.model_validate(repaired)
        except ValidationError as exc:
            problem = exc
    if problem is not None:
        fields = ", ".join(".".join(str(p) for p in error["loc"]) or "answer" for error in problem.errors()[:3])
        raise LLMError("format", f"{FORMAT_MESSAGE} (invalid: {fields})")
    raise LLMError("format", FORMAT_MESSAGE)
