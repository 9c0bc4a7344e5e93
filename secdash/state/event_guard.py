"""Every websocket event for a SecDash handler must fit the handler's signature before it runs.

Any client can send any event name with any payload. A payload with unknown or missing arguments,
or with a value of the wrong kind (a dict where a string is expected, a 2**64 id), is dropped here
with one warning line, instead of raising inside Reflex and filling the log with tracebacks.
"""

from __future__ import annotations

import inspect
import logging
import types
import typing
from typing import Any

from reflex.middleware import Middleware
from reflex.state import StateUpdate

log = logging.getLogger(__name__)

MAX_INT = 2**31 - 1


def _fits(value: Any, annotation: Any) -> bool:
    options = (
        typing.get_args(annotation)
        if isinstance(annotation, types.UnionType) or typing.get_origin(annotation) is typing.Union
        else (annotation,)
    )
    for option in options:
        origin = typing.get_origin(option) or option
        if option is type(None) and value is None:
            return True
        if origin is str and isinstance(value, str):
            return True
        if origin is bool and isinstance(value, bool):
            return True
        if origin is int and not isinstance(value, bool):
            if isinstance(value, int) and abs(value) <= MAX_INT:
                return True
            digits = value.strip().lstrip("-") if isinstance(value, str) else ""
            if digits.isascii() and digits.isdigit() and abs(int(value)) <= MAX_INT:  # "²" is a digit to isdigit()
                return True
        if origin is float and isinstance(value, int | float) and not isinstance(value, bool):
            return True
        if origin in (dict, list) and isinstance(value, origin):
            return True
        if origin is Any or option is inspect.Parameter.empty:
            return True
    return False


def payload_problem(fn, payload: dict[str, Any]) -> str | None:
    """Why this payload cannot call `fn`, or None when it fits."""
    params = list(inspect.signature(fn).parameters.values())[1:]
    hints = typing.get_type_hints(fn)
    names = {p.name for p in params}
    unknown = set(payload) - names
    if unknown:
        return f"unexpected arguments {sorted(unknown)}"
    for param in params:
        if param.name not in payload:
            if param.default is inspect.Parameter.empty:
                return f"missing argument {param.name!r}"
            continue
        if not _fits(payload[param.name], hints.get(param.name, Any)):
            return f"argument {param.name!r} has the wrong type"
    return None


class EventShapeGuard(Middleware):
    """Drops events whose payload does not fit the SecDash handler they name."""

    async def preprocess(self, app, state, event) -> StateUpdate | None:
        path, _, handler_name = event.name.rpartition(".")
        try:
            state_cls = type(state).get_class_substate(path) if path else None
        except (ValueError, IndexError):
            state_cls = None
        if state_cls is None or not state_cls.__module__.startswith("secdash."):
            return None
        handler = state_cls.event_handlers.get(handler_name)
        if handler is None:
            return None
        problem = payload_problem(handler.fn, dict(event.payload or {}))
        if problem is None:
            return None
        log.warning("dropped event %s: %s", event.name, problem)
        return StateUpdate()
