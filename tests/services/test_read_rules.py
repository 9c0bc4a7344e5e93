"""What a limited user may read is one rule (services/identity/permissions.py), and the screens built on it agree:
History Logs shows a limited user the Battle Station entries, and Battle Station (page and API) the operations."""

from __future__ import annotations

from secdash.core.unit import commit
from secdash.models import LogCategory, LogSeverity
from secdash.models.battle import AttackType, BattleOperation
from secdash.services import audit
from secdash.services.battle import station
from secdash.services.identity import permissions
from tests.factories import make_user


async def test_the_rule_names_what_each_role_reads_in_full(session):
    admin = await make_user(session, "root@example.com", role="admin")
    limited = await make_user(session, "viewer@example.com", role="limited")
    assert permissions.fully_readable(admin) == {c.value for c in LogCategory}
    assert permissions.fully_readable(limited) == {LogCategory.system.value, LogCategory.battle.value}
    assert permissions.may_read_all(limited, LogCategory.battle)
    assert not permissions.may_read_all(limited, LogCategory.security)


async def test_history_and_battle_station_agree_for_a_limited_user(session):
    admin = await make_user(session, "root@example.com", role="admin")
    limited = await make_user(session, "viewer@example.com", role="limited")
    session.add(
        BattleOperation(attack_type=AttackType.xss, site="gem", agent_id="gem", attack_source="203.0.113.7", started_by=admin.id)
    )
    audit.record(
        session,
        category=LogCategory.battle,
        action="Drill started",
        description="XSS drill",
        actor_user_id=admin.id,
        severity=LogSeverity.warning,
    )
    audit.record(
        session,
        category=LogCategory.battle,
        action="Admin-only battle note",
        description="hidden",
        actor_user_id=admin.id,
        admin_only=True,
    )
    await commit(session)
    read = await station.read_station(viewer=limited)
    assert len(read.operations) == 1
    assert len(await station.operations_for(session=session, viewer=limited)) == 1
    battle = await audit.list_logs(session=session, viewer=limited, category="battle")
    assert [log.action for log in battle] == ["Drill started"]  # never an admin-only entry
    assert (await audit.count_by_category(session=session, viewer=limited))["battle"] == 1
