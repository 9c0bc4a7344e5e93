"""Job kinds: one handler per kind, registered by the module that owns the work."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from secdash.jobs.context import JobContext

Handler = Callable[["JobContext"], Awaitable[dict[str, Any] | None]]


@dataclass(frozen=True)
class JobKind:
    name: str
    handler: Handler
    topic: str  # the area topic published with every change of a job of this kind (e.g. "scans")
    shared: bool = False  # every signed-in user may read it (a scan); otherwise its owner and admins
    requeue_on_interrupt: bool = False  # a job whose worker died runs again (up to max_attempts)
    max_attempts: int = 1


_KINDS: dict[str, JobKind] = {}


def register(
    name: str,
    *,
    topic: str | None = None,
    shared: bool = False,
    requeue_on_interrupt: bool = False,
    max_attempts: int = 1,
) -> Callable[[Handler], Handler]:
    """Decorator: `handler` runs the jobs of kind `name`."""

    def decorate(handler: Handler) -> Handler:
        _KINDS[name] = JobKind(
            name=name,
            handler=handler,
            topic=topic or f"jobs:{name}",
            shared=shared,
            requeue_on_interrupt=requeue_on_interrupt,
            max_attempts=max(1, max_attempts),
        )
        return handler

    return decorate


def kind(name: str) -> JobKind:
    try:
        return _KINDS[name]
    except KeyError:
        raise LookupError(f"no handler for job kind {name!r}") from None


def kinds() -> dict[str, JobKind]:
    return dict(_KINDS)
