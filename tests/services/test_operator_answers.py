"""Operator questions answered from this deployment's own data (issue item 10): what to fix first, a site's
DDoS risk, why a site is flapping, two sites compared and what changed since yesterday. The database is
seeded; the agent's situation is read by services/agents/agent_context.py and answered offline, and the same facts
reach a model's system prompt."""

from __future__ import annotations

import re
from datetime import timedelta

from secdash.ai.agents import AGENTS
from secdash.ai.offline import compose_answer
from secdash.ai.tasks.chat import agent_system_prompt
from secdash.core.unit import commit
from secdash.models import BattleOperation, EventSeverity, EventType, Site, SiteCheck, utcnow
from secdash.services.agents import agent_context
from secdash.services.battle import defense
from secdash.services.problems import events

RESET = "Connection reset by peer"


async def _seed(session):
    now = utcnow()
    stock = Site(
        name="Stock",
        domain="127.0.0.1:3000",
        url="http://127.0.0.1:3000/demo/stock/",
        status="secure",
        grade="A",
        score=90,
        response_time_ms=120,
        status_code=200,
        last_checked_at=now,
        is_demo=True,
        default_slug="stock",
    )
    shares = Site(
        name="Shares",
        domain="127.0.0.1:3000",
        url="http://127.0.0.1:3000/demo/shares/",
        status="secure",
        grade="B",
        score=80,
        response_time_ms=150,
        status_code=200,
        last_checked_at=now,
        is_demo=True,
        default_slug="shares",
    )
    shop = Site(
        name="Shop",
        domain="shop.example.com",
        url="https://shop.example.com/",
        status="warning",
        grade="C",
        score=65,
        response_time_ms=300,
        status_code=200,
        last_checked_at=now,
    )
    for site in (stock, shares, shop):
        session.add(site)
    await commit(session)
    # Shares: a check a minute for 30 minutes, failing at minutes 27, 17 and 7 ago (every 10 minutes)
    for minutes in range(30):
        failing = minutes in (7, 17, 27)
        session.add(
            SiteCheck(
                site_id=shares.id,
                checked_at=now - timedelta(minutes=minutes),
                status="critical" if failing else "secure",
                status_code=None if failing else 200,
                response_ms=None if failing else 150,
                error=RESET if failing else None,
            )
        )
    for minutes in range(5):
        session.add(
            SiteCheck(
                site_id=stock.id, checked_at=now - timedelta(minutes=minutes), status="secure", status_code=200, response_ms=120
            )
        )
    # a DDoS drill against Stock two hours ago, with the monitor's checks while it ran
    drill_start = now - timedelta(hours=2)
    session.add(
        BattleOperation(
            attack_type="ddos",
            site="stock",
            status="defended",
            effectiveness=93,
            after={"attackSent": 200, "attackBlocked": 190, "benignSent": 50, "benignBlocked": 1},
            started_at=drill_start,
            finished_at=drill_start + timedelta(minutes=5),
        )
    )
    for minutes, ms in ((1, 850), (3, 1240)):
        session.add(
            SiteCheck(
                site_id=stock.id,
                checked_at=drill_start + timedelta(minutes=minutes),
                status="secure",
                status_code=200,
                response_ms=ms,
            )
        )
    await commit(session)
    await defense.deploy_defense(
        session, "stock", {"rate_limits": [{"name": "per-client flood", "requests": 30, "window_seconds": 10}]}, source="drill"
    )
    # open problems: a high code finding with an offline recipe (2 days old), a medium header finding on the
    # public shop (1 day old, recipe), a high finding without a recipe (new), a low attack note
    sql = events.record(
        session,
        event_type=EventType.vulnerability_detected,
        severity=EventSeverity.high,
        site_id=stock.id,
        source="scanner",
        description="SQL built by concatenation (stock/db.js:8)",
        details={"file": "stock/db.js", "line": 8, "rule": "js:sql-concatenation", "root": "/srv/code"},
    )
    frame = events.record(
        session,
        event_type=EventType.vulnerability_detected,
        severity=EventSeverity.medium,
        site_id=shop.id,
        description="Shop: X-Frame-Options header missing",
        details={"kind": "site", "finding": "X-Frame-Options header missing", "points": 20, "url": shop.url},
    )
    password = events.record(
        session,
        event_type=EventType.vulnerability_detected,
        severity=EventSeverity.high,
        site_id=shares.id,
        source="scanner",
        description="Hardcoded password string (shares/settings.py:3)",
        details={"file": "shares/settings.py", "line": 3, "rule": "bandit:B105", "root": "/srv/code"},
    )
    note = events.record(
        session, event_type=EventType.attack_detected, severity=EventSeverity.low, description="A port scan from 203.0.113.9"
    )
    old = events.record(
        session,
        event_type=EventType.attack_detected,
        severity=EventSeverity.medium,
        site_id=shop.id,
        description="An attack closed long ago",
    )
    recovered = events.record(
        session,
        event_type=EventType.site_status_changed,
        severity=EventSeverity.high,
        site_id=shares.id,
        description="Shares is now ALERT: Connection reset by peer",
    )
    await commit(session)
    sql.created_at = now - timedelta(days=2)
    frame.created_at = now - timedelta(days=1, minutes=5)
    password.created_at = now - timedelta(hours=1)
    old.created_at, old.resolved, old.resolved_at = now - timedelta(days=3), True, now - timedelta(days=2)
    recovered.created_at = now - timedelta(minutes=7)
    recovered.resolved, recovered.resolved_at, recovered.resolved_by = True, now - timedelta(minutes=6), "monitor"
    recovered.resolution_note = "Recovered at the next check"
    for event in (sql, frame, password, old, recovered):
        session.add(event)
    await commit(session)
    return {"sql": sql.id, "frame": frame.id, "password": password.id, "note": note.id, "old": old.id, "recovered": recovered.id}


async def _ask(question: str, agent_id: str = "general") -> str:
    return compose_answer(question, AGENTS[agent_id], await agent_context.situation(agent_id=agent_id))


def _numbered(answer: str) -> list[str]:
    return [line for line in answer.splitlines() if re.match(r"\d+\. ", line)]


async def test_what_should_i_fix_first_names_the_three_highest_ranked_problems_in_order_with_their_fix(session):
    ids = await _seed(session)
    answer = await _ask("What should I fix first?")
    first = _numbered(answer)[:3]
    # severity, exposure (a public site), age and a ready fix: the old high finding with a recipe, then the
    # public shop's medium header finding (ready), then the new high finding without a recipe
    assert [f"#{ids['sql']}" in first[0], f"#{ids['frame']}" in first[1], f"#{ids['password']}" in first[2]] == [
        True,
        True,
        True,
    ], answer
    assert "query parameters" in first[0] and "fix ready" in first[0]  # Fix Mode's offline recipe
    assert "public site" in first[1] and "X-Frame-Options: DENY" in first[1]
    assert "move the password out of the code" in first[2]
    assert f"#{ids['note']}" not in "\n".join(first)
    assert "incident" not in answer.lower().split("###")[0]  # not the generic incident-response list


async def test_a_ddos_risk_question_about_stock_reads_its_rate_limits_drill_and_response_time_under_load(session):
    await _seed(session)
    answer = await _ask("Is there a DDoS risk for our Stock site?")
    assert "Nothing to fix right now" not in answer and "Is Stock safe?" not in answer
    assert "DDoS" in answer
    assert "at most 30 requests per 10 s per client" in answer  # the deployed defense's rate limit
    assert "blocked 190 of 200 attack requests (95%)" in answer  # the last DDoS drill's measurement
    assert "peaked at 1240 ms" in answer  # the monitor's checks while the drill ran


async def test_a_site_never_drilled_says_so_plainly(session):
    await _seed(session)
    answer = await _ask("Is there a DDoS risk for Shares?")
    assert "No DDoS drill has run against Shares yet" in answer
    assert "weak default" in answer and "no rate limit" in answer


async def test_why_is_shares_flapping_reads_the_interval_times_and_error_from_its_checks(session):
    await _seed(session)
    situation = await agent_context.situation(agent_id="shares")
    failures = [c.checked_at[11:16] for c in reversed(situation.sites[0].history) if c.status == "critical"]
    for agent_id in ("general", "shares"):
        answer = await _ask("why is Shares flapping?", agent_id)
        assert "Shares is flapping" in answer
        assert "3 of its last 30 checks" in answer
        assert "regular interval of about 10 min" in answer
        assert all(time in answer for time in failures), failures
        assert RESET in answer


async def test_two_sites_compared_side_by_side(session):
    await _seed(session)
    answer = await _ask("Which is safer, Stock or Shares?")
    stock = next(line for line in answer.splitlines() if line.startswith("- [live] Stock:"))
    shares = next(line for line in answer.splitlines() if line.startswith("- [live] Shares:"))
    assert "3 of 30 recent checks failed" in shares and "grade A" in stock
    assert answer.index("- [live] Stock:") < answer.index("- [live] Shares:")  # safest first
    assert "In better shape: Stock; most at risk: Shares" in answer


async def test_what_changed_since_yesterday_lists_the_last_24_hours_only(session):
    ids = await _seed(session)
    answer = await _ask("What changed since yesterday?")
    assert f"event #{ids['recovered']} closed by monitor" in answer
    assert f"finding #{ids['password']} opened" in answer
    assert "drill #" in answer and "blocked 190 of 200" in answer
    assert "defense revision 1 deployed on Stock" in answer
    assert f"finding #{ids['sql']} " not in answer and f"event #{ids['old']} " not in answer  # older than a day


async def test_a_models_system_prompt_carries_the_same_computed_facts(session):
    ids = await _seed(session)
    prompt = agent_system_prompt(AGENTS["general"], await agent_context.situation(agent_id="general"))
    assert f"[rank 1] finding #{ids['sql']}" in prompt and f"[rank 2] event #{ids['frame']}" in prompt
    assert "[checks Shares] Shares is flapping" in prompt and "regular interval of about 10 min" in prompt
    assert "[defense Stock]" in prompt and "at most 30 requests per 10 s" in prompt
    assert "blocked 190 of 200" in prompt and "peaked at 1240 ms" in prompt
    assert "closed by monitor" in prompt


async def test_a_platform_agent_ranks_only_its_own_sites_problems(session):
    ids = await _seed(session)
    answer = await _ask("What should I fix first?", "shares")
    assert f"#{ids['password']}" in _numbered(answer)[0]
    assert f"#{ids['sql']}" not in answer and f"#{ids['frame']}" not in answer


async def test_which_fixes_are_ready_lists_only_problems_with_a_fix_ready(session):
    ids = await _seed(session)
    answer = await _ask("Which fixes are ready to apply?")
    listed = _numbered(answer)
    assert [f"#{ids['sql']}" in listed[0], f"#{ids['frame']}" in listed[1]] == [True, True], answer
    assert f"#{ids['password']}" not in answer  # no recipe and no proposal for it


async def test_a_platform_agent_asked_about_another_site_points_to_the_agent_that_sees_it(session):
    await _seed(session)
    answer = await _ask("Is there a DDoS risk for our Stock site?", "shares")
    assert "I watch Shares only" in answer and "Defense Command" in answer
    assert "No monitored site is named Stock" not in answer
