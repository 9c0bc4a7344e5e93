"""A job whose worker died (the server stopped during it), as a restart leaves it, and the reaper that finds it."""

from __future__ import annotations

from sqlalchemy import event

from secdash.jobs import runner
from secdash.models import utcnow
from secdash.models.jobs import Job, JobStatus


async def worker_died(session, job_id: int, *, reaped: bool = True) -> None:
    """Job `job_id` still says running but its worker went silent; `reaped`: the reaper has since marked it
    interrupted and called its kind's end hook (else only the job is interrupted, its record untouched)."""
    job = await session.get(Job, job_id)
    assert job is not None
    job.status, job.worker = (JobStatus.running if reaped else JobStatus.interrupted), "gone:1"
    job.heartbeat_at = utcnow() - 2 * runner.STALE_AFTER
    session.add(job)
    await session.commit()
    if reaped:
        assert (job_id, False) in await runner.reap_once()
    session.expire_all()


class Writes:
    """What a session flushes while the block runs (`with Writes(session) as writes: ...`): no entry, no write."""

    def __init__(self, session) -> None:
        self.session = session
        self.flushed: list[str] = []

    def _flushed(self, sess, _context, _instances) -> None:
        self.flushed.extend(type(obj).__name__ for obj in [*sess.new, *sess.dirty, *sess.deleted])

    def _committed(self, _sess) -> None:
        self.flushed.append("commit")

    def __enter__(self) -> list[str]:
        event.listen(self.session.sync_session, "before_flush", self._flushed)
        event.listen(self.session.sync_session, "before_commit", self._committed)
        return self.flushed

    def __exit__(self, *_exc) -> None:
        event.remove(self.session.sync_session, "before_flush", self._flushed)
        event.remove(self.session.sync_session, "before_commit", self._committed)
