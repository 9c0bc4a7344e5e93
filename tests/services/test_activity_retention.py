"""The AI activity feed's real lines do not pile up: housekeeping drops those older than SECDASH_AI_ACTIVITY_DAYS
(a demo site's designed outage alone writes about 576 a day), and the lines the screens list stay."""

from __future__ import annotations

from datetime import timedelta

from sqlmodel import select

from secdash.core.db import session_scope
from secdash.models import AiActivity, utcnow
from secdash.services.agents import activities


async def test_lines_older_than_the_retention_are_dropped_and_the_recent_ones_stay(session, settings, monkeypatch):
    monkeypatch.setattr(settings, "AI_ACTIVITY_DAYS", 30)
    now = utcnow()
    for days, description in ((45, "old outage"), (31, "last month's fix"), (29, "this month's drill"), (0, "today")):
        line = activities.record(session, activity_type="scan", target="Shares", description=description)
        line.created_at = now - timedelta(days=days)
    await session.commit()

    async with session_scope() as own:
        assert await activities.prune(own) == 2
    async with session_scope() as own:
        kept = [row.description for row in await own.exec(select(AiActivity).order_by(AiActivity.created_at))]
        assert kept == ["this month's drill", "today"]
        assert [row.description for row in await activities.recent(session=own)] == ["today", "this month's drill"]
        assert await activities.prune(own) == 0
