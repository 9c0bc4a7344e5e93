"""Where model calls are made from: the instrumented wrapper (`secdash.ai.calls.AICalls`) with this
service's recorder and budget. Every feature gets its calls from `for_user`; nothing else calls a
provider.

- Budget: `quotas.ai_call` (per-user moving window and calls at once) admits every call that is not
  a follow-up of another (see secdash/ai/calls.py).
- Record: each call becomes an `ai_calls` row (feature, task, agent, user, engine, tokens, latency to
  the first token and in total, outcome) in its own short session, and a call that is not a
  follow-up writes the audit entry (category ai) the chats have always written. Neither holds the
  prompt or the reply.
"""

from __future__ import annotations

import dataclasses
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Any, TypeVar

from pydantic import BaseModel

from secdash.ai.agents import AGENTS
from secdash.ai.base import Provider
from secdash.ai.calls import AICalls, CallRecord
from secdash.ai.providers import get_provider
from secdash.core.config import Settings
from secdash.core.db import session_scope
from secdash.core.unit import commit, mark_changed
from secdash.models import LogCategory, LogSeverity, UserPublic
from secdash.models.ai import AiCall, AiCallOutcome
from secdash.services import audit
from secdash.services.identity import quotas

# The audit action per feature; today's chats keep the entry they always had.
ACTIONS = {"chat": "AI reply", "defense_plan": "AI defense plan", "fix_proposal": "AI fix proposal"}

TOPIC = "ai_calls"  # published when a model call is recorded
Answer = TypeVar("Answer", bound=BaseModel)
Checked = TypeVar("Checked")


def _audit_outcome(record: CallRecord) -> str:
    """As the audit trail has always said it: ok, the error's kind, or cancelled."""
    if record.outcome == "error":
        return record.error_kind or "error"
    return "cancelled" if record.outcome == "stopped" else "ok"


def _audit(session: Any, record: CallRecord, user: UserPublic | None) -> None:
    agent = AGENTS.get(record.agent)
    agent_name = agent.name if agent else record.agent
    outcome = _audit_outcome(record)
    action = ACTIONS.get(record.feature, f"AI {record.feature}")
    who = user.email if user else "the threat simulation"
    what = "answered" if record.feature == "chat" else f"wrote a {action.removeprefix('AI ')} for"
    audit.record(
        session,
        category=LogCategory.ai,
        action=action if outcome == "ok" else f"{action} {outcome}",
        severity=LogSeverity.info if outcome in ("ok", "cancelled") else LogSeverity.error,
        description=f"{agent_name} {what} {who} via {record.provider}"
        if outcome == "ok"
        else f"{agent_name} {action.removeprefix('AI ')} for {who}: {outcome}",
        actor_user_id=user.id if user else None,
        details={
            "agent": record.agent,
            "feature": record.feature,
            "provider": record.provider,
            "model": record.model,
            "characters": record.characters,
            "latencyMs": record.total_ms,
            "firstTokenMs": record.first_token_ms,
            "promptTokens": record.prompt_tokens,
            "completionTokens": record.completion_tokens,
            "outcome": outcome,
        },
    )


def recorder(user: UserPublic | None):
    """The wrapper's `record` callback for this user: one row per call, the audit entry per request."""

    async def record(call: CallRecord) -> int | None:
        async with session_scope() as session:
            row = AiCall(
                feature=call.feature,
                task=call.task,
                agent=call.agent,
                user_id=call.user_id,
                parent_id=call.parent_id,
                provider=call.provider,
                model=call.model,
                prompt_tokens=call.prompt_tokens,
                completion_tokens=call.completion_tokens,
                first_token_ms=call.first_token_ms,
                total_ms=call.total_ms,
                outcome=AiCallOutcome(call.outcome),
                error_kind=call.error_kind,
            )
            session.add(row)
            if call.parent_id is None:
                _audit(session, call, user)
            mark_changed(session, TOPIC)  # AI Systems' call figures follow it
            await commit(session)
            return row.id

    return record


def for_user(*, settings: Settings, user: UserPublic, feature: str, agent: str, provider: Provider | None = None) -> AICalls:
    """The calls one user makes for one feature and agent (the configured engine unless `provider`)."""
    return AICalls(
        provider or get_provider(settings),
        feature=feature,
        agent=agent,
        user_id=user.id,
        record=recorder(user),
        admit=lambda: quotas.ai_call(settings=settings, user_id=user.id),
    )


@asynccontextmanager
async def _system_admission() -> AsyncIterator[None]:
    yield  # the system's calls are bounded by their callers (one simulated drill per site at a time)


def for_system(*, settings: Settings, feature: str, agent: str, provider: Provider | None = None) -> AICalls:
    """Calls made by the server itself (a simulated threat's drill): recorded and audited without a user."""
    return AICalls(
        provider or get_provider(settings),
        feature=feature,
        agent=agent,
        user_id=None,
        record=recorder(None),
        admit=_system_admission,
    )


class AnswerRefused(Exception):
    """Every answer the model gave was refused by the server's checks; `reason` is the last refusal."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


async def structured_checked(
    calls: AICalls,
    task: Any,
    schema: type[Answer],
    check: Callable[[Answer], Checked],
    *,
    refusals: tuple[type[Exception], ...],
    on_refused: Callable[[int, str], Awaitable[None]],
    attempts: int = 2,
) -> tuple[Answer, Checked]:
    """A structured answer and what `check` makes of it; an answer `check` refuses (one of `refusals`) is asked
    again with the reason in the task's `feedback` (a dataclass field), up to `attempts` times in all.

    Model errors (LLMError) and the user's AI budget (DomainError) go to the caller; AnswerRefused when every
    answer was refused."""
    feedback = ""
    for attempt in range(1, attempts + 1):
        asked = dataclasses.replace(task, feedback=feedback) if feedback else task
        answer = await calls.structured(asked, schema)
        try:
            return answer, check(answer)
        except refusals as exc:
            feedback = getattr(exc, "message", None) or str(exc)
            await on_refused(attempt, feedback)
    raise AnswerRefused(feedback)
