"""A model that answers every structured request with the same object (to test what the server does with it)."""

from __future__ import annotations

from secdash.ai.base import Structured


class FixedProvider:
    name, model = "fake", "fixed-answer"

    def __init__(self, answer: dict) -> None:
        self.answer, self.calls = answer, 0

    def stream(self, task):  # pragma: no cover - only structured answers are asked of it
        raise NotImplementedError

    async def structured(self, task, schema):
        self.calls += 1
        return Structured(schema.model_validate(self.answer))
