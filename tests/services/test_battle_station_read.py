"""The Battle Station page's read: it follows drill logs only, never another kind of job's log."""

from __future__ import annotations

from secdash.core.unit import commit
from secdash.jobs import store
from secdash.jobs.registry import register
from secdash.services.battle import station
from tests.factories import make_user


@register("private-test-kind")
async def _private(ctx):  # pragma: no cover - never run here
    return None


async def test_a_log_job_that_is_not_a_drill_is_not_read(session):
    owner = await make_user(session, "owner@example.com", role="admin")
    job = await store.create(session, kind="private-test-kind", owner_user_id=owner.id, owner_email=owner.email)
    await commit(session)
    await store.append_log(job.id, "a private line", "info")
    read = await station.read_station(viewer=owner, log_job=job.id)
    assert read.log == [] and read.log_job == 0
