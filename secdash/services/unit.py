"""Committing a unit of work and announcing what it changed."""

from __future__ import annotations

from sqlmodel.ext.asyncio.session import AsyncSession

from secdash.core import notify

_TOPICS_KEY = "secdash_changed_topics"
_JOBS_KEY = "secdash_jobs_to_dispatch"


def mark_changed(session: AsyncSession, topic: str) -> None:
    """Remember that this session's commit changes `topic`."""
    session.info.setdefault(_TOPICS_KEY, set()).add(topic)


async def end_read(session: AsyncSession) -> None:
    """End a read-only transaction (nothing written yet) so no pooled connection is held across slow work that
    follows: a DNS lookup, a model call, `node --check` (objects stay loaded: sessions do not expire on commit)."""
    if session.in_transaction() and not (session.new or session.dirty or session.deleted):
        await session.commit()


def dispatch_after_commit(session: AsyncSession, job_id: int) -> None:
    """Hand this job to a worker once this session's commit has made it visible (a job created inside a larger
    unit of work, such as a delivery the monitor's probe causes). If the process stops first, the reaper
    re-queues the job (runner.FORGOTTEN_AFTER)."""
    session.info.setdefault(_JOBS_KEY, []).append(job_id)


async def commit(session: AsyncSession) -> None:
    """Commit, then publish the topics the work changed and dispatch its jobs (never before the data is visible)."""
    await session.commit()
    topics = session.info.pop(_TOPICS_KEY, set())
    if topics:
        await notify.publish(*sorted(topics))
    jobs = session.info.pop(_JOBS_KEY, [])
    if jobs:
        from secdash.jobs import runner  # the job runner imports the services that use this module

        for job_id in jobs:
            await runner.dispatch(job_id)
