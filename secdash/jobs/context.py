"""What a job handler gets: its parameters, a log, progress and the stop check."""

from __future__ import annotations

import time
from typing import Any

from secdash.jobs import store
from secdash.models.jobs import Job, JobLevel

PROGRESS_EVERY_SECONDS = 0.5  # progress is saved (and the stop flag read) at most this often, unless forced
STOP_CHECK_EVERY_SECONDS = 0.5


class JobContext:
    """One running job, seen from its handler.

    - `await ctx.log(message, level)` appends an ordered log line that every open page sees.
    - `await ctx.progress(**fields)` merges fields into the job's progress; saved at most every 0.5 s
      (`force=True` saves now), each save also being a heartbeat and reading the stop flag.
    - `await ctx.should_stop()` is True once a stop was requested (read at most every 0.5 s);
      a handler that ends because of it ends as `stopped`, one that finishes its work as `done`.
    """

    def __init__(self, job: Job) -> None:
        assert job.id is not None
        self.job_id: int = job.id
        self.kind = job.kind
        self.params: dict[str, Any] = dict(job.params or {})
        self.owner_user_id = job.owner_user_id
        self.owner_email = job.owner_email
        self.attempt = job.attempts
        self._progress: dict[str, Any] = dict(job.progress or {})
        self._saved_at = 0.0
        self._dirty = False
        self._stop_requested = bool(job.stop_requested)
        self._stop_read_at = time.monotonic()
        self.honoured_stop = False  # should_stop() said True: the handler is ending early

    @property
    def current_progress(self) -> dict[str, Any]:
        return dict(self._progress)

    async def log(self, message: str, level: JobLevel | str = JobLevel.info) -> int:
        return await store.append_log(self.job_id, message, level)

    async def progress(self, *, force: bool = False, every: float | None = None, **fields: Any) -> bool:
        """Merge `fields` into the progress; save if `every` seconds (default 0.5) passed since the last save.

        Returns whether it saved (and so read the stop flag)."""
        self._progress.update(fields)
        self._dirty = True
        every = PROGRESS_EVERY_SECONDS if every is None else every
        if force or time.monotonic() - self._saved_at >= every:
            await self.flush()
            return True
        return False

    async def flush(self) -> None:
        """Save unsaved progress now (a heartbeat that also reads the stop flag)."""
        if not self._dirty:
            return
        self._dirty = False
        self._saved_at = time.monotonic()
        self._note_stop(await store.beat(self.job_id, self._progress))

    async def heartbeat(self) -> None:
        """Tell the others this job's worker is alive (the runner calls it on a timer)."""
        self._note_stop(await store.beat(self.job_id))

    def _note_stop(self, requested: bool) -> None:
        self._stop_requested = self._stop_requested or requested
        self._stop_read_at = time.monotonic()

    async def should_stop(self, max_age: float | None = STOP_CHECK_EVERY_SECONDS) -> bool:
        """Whether a stop was requested, read again if the last reading is older than `max_age` seconds
        (0: read now; None: trust the last reading, e.g. the progress save just made)."""
        stale = max_age is not None and time.monotonic() - self._stop_read_at >= max_age
        if not self._stop_requested and stale:
            self._note_stop(await store.beat(self.job_id))
        if self._stop_requested:
            self.honoured_stop = True
        return self._stop_requested
