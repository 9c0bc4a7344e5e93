"""The audit trail: newest first, per category, and each role sees what it may."""

from __future__ import annotations

import pytest

from secdash.core.unit import commit
from secdash.models import LogCategory, LogSeverity
from secdash.services import audit
from secdash.services.errors import Invalid
from tests.factories import make_user


async def _write(session, category, action, actor=None):
    audit.record(
        session,
        category=category,
        action=action,
        description=action,
        actor_user_id=actor,
        severity=LogSeverity.info,
        details={"n": action},
    )
    await commit(session)


async def test_admin_sees_everything_newest_first_and_filters_by_category(session):
    admin = await make_user(session, "root@example.com", role="admin")
    await _write(session, LogCategory.security, "first")
    await _write(session, LogCategory.battle, "second")
    logs = await audit.list_logs(session=session, viewer=admin)
    assert [log.action for log in logs][:2] == ["second", "first"]
    battle = await audit.list_logs(session=session, viewer=admin, category="battle")
    assert [log.action for log in battle] == ["second"]
    assert battle[0].metadata == {"n": "second"}


async def test_limited_user_sees_system_entries_and_their_own_only(session):
    limited = await make_user(session, "viewer@example.com", role="limited")
    other = await make_user(session, "other@example.com", role="limited")
    await _write(session, LogCategory.system, "system notice")
    await _write(session, LogCategory.security, "mine", actor=limited.id)
    await _write(session, LogCategory.security, "theirs", actor=other.id)
    await _write(session, LogCategory.security, "anonymous failure")
    seen = {log.action for log in await audit.list_logs(session=session, viewer=limited)}
    assert {"system notice", "mine"} <= seen
    assert "theirs" not in seen and "anonymous failure" not in seen
    counts = await audit.count_by_category(session=session, viewer=limited)
    assert counts["all"] == len(seen)


async def test_counts_per_category(session):
    admin = await make_user(session, "root@example.com", role="admin")
    for _ in range(3):
        await _write(session, LogCategory.ai, "ai")
    counts = await audit.count_by_category(session=session, viewer=admin)
    assert counts["ai"] == 3 and counts["battle"] == 0
    assert counts["all"] == counts["ai"] + counts["user"]  # the user-created entry


def test_limit_and_category_validation():
    assert audit.parse_limit(None) == 100
    assert audit.parse_limit("1000") == 1000
    for bad in ("0", "1001", "ten"):
        with pytest.raises(Invalid, match="limit"):
            audit.parse_limit(bad)
    with pytest.raises(Invalid, match="category"):
        audit.parse_category("nonsense")


async def test_limit_caps_the_result(session):
    admin = await make_user(session, "root@example.com", role="admin")
    for n in range(5):
        await _write(session, LogCategory.system, f"e{n}")
    assert len(await audit.list_logs(session=session, viewer=admin, limit=2)) == 2
