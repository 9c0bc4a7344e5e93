"""Job kinds: one handler per kind, registered by the module that owns the work."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from secdash.jobs.context import JobContext

Handler = Callable[["JobContext"], Awaitable[dict[str, Any] | None]]


@dataclass(frozen=True)
class JobEnding:
    """How a job ended without its handler closing its record: it crashed (failed), the server stopped during it,
    or the reaper found its worker gone (interrupted)."""

    job_id: int
    params: dict[str, Any]
    status: str  # "failed" or "interrupted" (a JobStatus value)
    error: str


# The kind's own record (a drill, a build, a fix) ends here: the runner calls it after a crash or a stop of the
# server, the reaper after a worker vanished. Handlers close their record for the outcomes they know themselves.
EndHook = Callable[[JobEnding], Awaitable[None]]


@dataclass(frozen=True)
class JobKind:
    name: str
    handler: Handler
    topic: str  # the area topic published with every change of a job of this kind (e.g. "scans")
    shared: bool = False  # every signed-in user may read it (a scan); otherwise its owner and admins
    requeue_on_interrupt: bool = False  # a job whose worker died runs again (up to max_attempts)
    max_attempts: int = 1
    on_end: EndHook | None = None
    owner_topic: Callable[[int], str] | None = None  # every change of a job is also published on its owner's topic


_KINDS: dict[str, JobKind] = {}


def register(
    name: str,
    *,
    topic: str | None = None,
    shared: bool = False,
    requeue_on_interrupt: bool = False,
    max_attempts: int = 1,
    on_end: EndHook | None = None,
    owner_topic: Callable[[int], str] | None = None,
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
            on_end=on_end,
            owner_topic=owner_topic,
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
