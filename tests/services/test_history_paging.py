"""History Logs beyond the newest 100: paging with a cursor and a text filter."""

from __future__ import annotations

import pytest

from secdash.core.unit import commit
from secdash.models import LogCategory
from secdash.services import audit
from secdash.services.errors import Invalid
from tests.factories import make_user


async def _write(session, count: int, action: str = "Probe", category=LogCategory.system) -> None:
    for i in range(count):
        audit.record(session, category=category, action=action, description=f"{action} number {i}")
    await commit(session)


async def test_every_entry_is_reachable_page_by_page(session):
    admin = await make_user(session, "root@example.com", role="admin")
    await _write(session, 141)
    counts = await audit.count_by_category(session=session, viewer=admin)
    seen, before = [], None
    while True:
        page = await audit.list_logs(session=session, viewer=admin, limit=50, before=before)
        if not page:
            break
        seen.extend(page)
        before = page[-1].id
    assert len(seen) == counts["all"] >= 141
    assert len({e.id for e in seen}) == len(seen)  # no entry twice
    stamps = [(e.timestamp, e.id) for e in seen]
    assert stamps == sorted(stamps, reverse=True)  # newest first throughout


async def test_text_filter_matches_action_or_description_case_insensitively(session):
    admin = await make_user(session, "root@example.com", role="admin")
    await _write(session, 3, action="Site added")
    await _write(session, 2, action="Probe")
    found = await audit.list_logs(session=session, viewer=admin, search="SITE ADD")
    assert [e.action for e in found] == ["Site added"] * 3
    assert len(await audit.list_logs(session=session, viewer=admin, search="number 1")) == 2
    assert (await audit.count_by_category(session=session, viewer=admin, search="site add"))["all"] == 3


async def test_like_wildcards_in_the_filter_are_literal(session):
    admin = await make_user(session, "root@example.com", role="admin")
    await _write(session, 2, action="Probe")
    assert await audit.list_logs(session=session, viewer=admin, search="%") == []
    assert await audit.list_logs(session=session, viewer=admin, search="_") == []


async def test_a_cursor_the_viewer_may_not_see_is_refused(session):
    admin = await make_user(session, "root@example.com", role="admin")
    viewer = await make_user(session, "viewer@example.com", role="limited")
    audit.record(session, category=LogCategory.security, action="Secret", description="admin only", actor_user_id=admin.id)
    await commit(session)
    secret = (await audit.list_logs(session=session, viewer=admin, search="Secret"))[0]
    with pytest.raises(Invalid, match="before"):
        await audit.list_logs(session=session, viewer=viewer, before=secret.id)


@pytest.mark.parametrize("value", ["abc", "0", "-5", str(2**63)])
def test_bad_cursors_are_invalid(value):
    with pytest.raises(Invalid, match="before"):
        audit.parse_before(value)


def test_over_long_filters_are_invalid():
    with pytest.raises(Invalid, match="at most 200"):
        audit.parse_search("x" * 201)
