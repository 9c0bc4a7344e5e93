"""A job's log as the pages show it (the Security Scan, Battle Station, Fix Mode and Code Builder logs): its
lines, and the cursor a tab keeps to read only the lines it does not have yet."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from secdash.models import as_utc
from secdash.models.jobs_public import JobLogPublic

Shown = TypeVar("Shown")


@dataclasses.dataclass
class LogLine:
    seq: int = 0
    level: str = "info"
    message: str = ""
    time: str = ""

    @classmethod
    def of(cls, line: JobLogPublic) -> LogLine:
        return cls(seq=line.seq, level=line.level.value, message=line.message, time=as_utc(line.created_at).strftime("%H:%M:%S"))


def _seq(line: Any) -> int:
    return line.seq


def fresh_lines(
    shown: Sequence[Shown],
    after: int,
    lines: Sequence[Any],
    *,
    kept: int,
    view: Callable[[Any], Shown],
    position: Callable[[Any], int] = _seq,
) -> tuple[int, list[Shown] | None]:
    """The lines of a read past the cursor `after` appended to the `shown` ones (the newest `kept`), and the new
    cursor (the position of the last line). None instead of a list when nothing new came: the tab's list stays."""
    fresh = [line for line in lines if position(line) > after]
    if not fresh:
        return after, None
    return position(fresh[-1]), [*shown, *(view(line) for line in fresh)][-kept:]


def job_log_step(
    job: int, after: int, shown: Sequence[LogLine], job_id: int, lines: Sequence[JobLogPublic], *, kept: int
) -> tuple[int, int, list[LogLine] | None]:
    """A tab's job log after a read of job `job_id`'s lines: (job, cursor, lines to show, None: unchanged). Another
    job than the one shown (`job`) is shown from its start."""
    restart = job_id != job
    if restart:
        job, after, shown = job_id, 0, []
    after, new = fresh_lines(shown, after, lines, kept=kept, view=LogLine.of)
    return job, after, ([] if restart else None) if new is None else new
