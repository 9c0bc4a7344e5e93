"""Battle Station state: the spec's DEFENDING/SECURE machine on reads (drills running, their duration, outcomes
toasted once, the simulated-threat toast once per new announcement, the log read on from the last line), and
the trigger's server checks (a limited user gets the 403 message and nothing changes; a busy demo site gets the
fallback and the System Alert)."""

from __future__ import annotations

import random
from datetime import timedelta

import reflex as rx

import secdash.secdash  # noqa: F401
from secdash.ai.agents import PLATFORM_AGENT_IDS
from secdash.core.unit import commit
from secdash.jobs import store
from secdash.models import BattleOperation, JobLevel, OperationStatus, utcnow
from secdash.models.battle_public import ActiveBattlePublic, MitreTechnique, OperationPublic, RunCounts
from secdash.models.jobs_public import JobLogPublic
from secdash.services.battle import defense, drills
from secdash.services.battle.station import SiteDefense, StationRead
from secdash.state.battle import FALLBACK_CODE, BattleState
from tests.factories import make_user, sign_in


def _state(token: str = "") -> BattleState:
    root = rx.State(_reflex_internal_init=True)
    state = root.get_substate(BattleState.get_full_name().split("."))
    state.auth_token = token
    return state


def _op(op_id: int, status: str = "running", effectiveness: int | None = None, error: str | None = None) -> OperationPublic:
    return OperationPublic(
        id=op_id,
        attack_type="xss",
        label="XSS Attack",
        status=OperationStatus(status),
        effectiveness=effectiveness,
        defense_strategy="Block script tags",
        defense_code="line 1\nline 2\nline 3\nline 4",
        attack_source="",
        timestamp=utcnow(),
        finished_at=None,
        site="tour",
        site_name="Tour",
        agent_id="tour",
        simulated=False,
        mitre=MitreTechnique(id="T1059.007", name="JavaScript", url="https://attack.mitre.org/techniques/T1059/007/"),
        baseline=RunCounts(),
        after=RunCounts(attack_sent=40, attack_blocked=38, benign_sent=20, benign_blocked=1),
        block_rate=None,
        benign_pass_rate=None,
        provider="offline",
        model="offline",
        error=error,
        job_id=op_id * 10,
    )


def _active(op_id: int, *, started_ago: float = 1.0, simulated: bool = False) -> ActiveBattlePublic:
    return ActiveBattlePublic(
        id=op_id,
        operation_id=op_id,
        job_id=op_id * 10,
        attack_type="xss",
        label="XSS Attack",
        site="tour",
        defense_code="",
        start_time=utcnow() - timedelta(seconds=started_ago),
        duration=300,
        phase="baseline",
        percent=20,
        simulated=simulated,
    )


def _line(seq: int) -> JobLogPublic:
    return JobLogPublic(seq=seq, level=JobLevel.info, message=f"line {seq}", created_at=utcnow())


def _read(ops=(), active=(), announcement=None, log_job=0, log=()) -> StationRead:
    return StationRead(
        operations=list(ops),
        active=list(active),
        defenses=[
            SiteDefense(slug=s, revision=0, source="default", operation_id=None, updated_at="") for s in defense.DEMO_SLUGS
        ],
        announcement=announcement,
        log_job=log_job,
        log=list(log),
    )


def test_a_running_drill_means_defending_until_it_ends_with_one_success_toast():
    state = _state()
    state._own, state._watched = [7], [7]
    assert state._apply(_read([_op(7)], [_active(7)], log_job=70, log=[_line(1), _line(2)])) == []
    assert state.defending and state.pending and state.has_active
    assert state.active_label == "XSS"  # the panel reads "XSS Attack in Progress"
    assert [line.message for line in state.log] == ["line 1", "line 2"]
    assert state.operations[0].counts == "measuring..."

    events = state._apply(_read([_op(7, "defended", 92)], []))
    assert "Defense Activated!" in str(events) and "deployed with 92% effectiveness" in str(events)
    assert not state.defending and not state.pending and not state.has_active
    view = state.operations[0]
    assert (view.effectiveness_label, view.effectiveness_high, view.defended) == ("92%", True, True)
    assert view.code_head == "line 1\nline 2\nline 3"  # the first 3 lines
    assert view.counts == "blocked 38/40 attack, served 19/20 benign" and view.source == "Unknown"
    assert state._apply(_read([_op(7, "defended", 92)], [])) == []  # toasted once


def test_the_log_is_read_on_from_the_last_line_and_kept_short():
    state = _state()
    state._apply(_read([_op(3)], [_active(3)], log_job=30, log=[_line(1), _line(2)]))
    assert state._log_seq == 2
    state._apply(_read([_op(3)], [_active(3)], log_job=30, log=[_line(2), _line(3)]))  # a repeated line is not shown twice
    assert [line.seq for line in state.log] == [1, 2, 3]


def test_a_drill_past_its_duration_no_longer_holds_defending():
    state = _state()
    state._apply(_read([_op(4)], [_active(4, started_ago=301)]))
    assert not state.defending and not state.has_active


def test_a_failed_drill_shows_the_fallback_and_a_system_alert():
    state = _state()
    state._watched = [5]
    state._apply(_read([_op(5)], [_active(5, simulated=True)]))
    events = state._apply(_read([_op(5, "failed", error="The agent's defense was refused twice: bad regex")], []))
    assert "System Alert" in str(events) and "fallback protocols engaged" in str(events)
    assert "end_fallback" in str(events)
    assert state.defending and state.fallback_code.startswith("# EMERGENCY FALLBACK - no AI defense was deployed")
    assert "refused twice" in state.fallback_code
    yellow = state.operations[0]
    assert not yellow.defended and yellow.counts.startswith("not measured")


def test_a_simulated_threat_is_toasted_once_and_not_on_load():
    state = _state()
    old = {"attackType": "ddos", "label": "DDoS Attack", "at": "2026-01-01T00:00:00Z"}
    assert state._apply(_read(announcement=old)) == []  # seen at load: no toast
    new = {"attackType": "malware", "label": "Malware", "at": "2026-01-01T00:00:15Z"}
    events = state._apply(_read(announcement=new))
    assert "THREAT DETECTED" in str(events) and "Malware incoming - AI defense activating" in str(events)
    assert state._apply(_read(announcement=new)) == []


async def test_a_limited_user_gets_the_servers_refusal_and_nothing_changes(session):
    await make_user(session, "viewer@example.com", role="limited")
    state = _state(await sign_in(session, "viewer@example.com"))
    events = await BattleState.event_handlers["trigger"].fn(state, attack_type="phishing")
    assert "Access denied" in str(events) and "Only administrators may start Battle Station drills" in str(events)
    assert not state.defending and not state.pending and state.fallback_code == ""


async def test_a_busy_demo_site_answers_with_the_fallback(session):
    await make_user(session, "admin@example.com", role="admin")
    for slug in defense.DEMO_SLUGS:  # every site has a drill job queued: whichever agent is picked, the site is busy
        await store.create(session, kind="drill", singleton_key=f"drill:{slug}", params={"site": slug})
    await commit(session)
    state = _state(await sign_in(session, "admin@example.com"))
    events = await BattleState.event_handlers["trigger"].fn(state, attack_type="sql_injection")
    text = str(events)
    assert "SQL INJECTION ATTACK DETECTED" in text and "System Alert" in text
    assert state.defending and not state.pending and state.fallback_label == "SQL Injection"
    assert state.active_label == ""  # the panel's title comes from the failed request, nothing else changed
    assert state.fallback_code.startswith(FALLBACK_CODE.splitlines()[0])
    assert "A drill is already running against" in state.fallback_code


async def test_an_unknown_attack_type_is_refused_before_the_server_is_asked(session):
    await make_user(session, "admin@example.com", role="admin")
    state = _state(await sign_in(session, "admin@example.com"))
    events = await BattleState.event_handlers["trigger"].fn(state, attack_type="nuke")
    assert "attackType must be one of" in str(events) and not state.defending


async def test_an_open_battle_station_page_is_what_lets_the_threat_simulation_run(session):
    """Issue 23 item 3: the simulated threat belongs to the open page; a signed-out page says nothing."""
    import asyncio

    from secdash.services.battle import threats

    await make_user(session, "viewer@example.com", role="limited")
    signed_out = _state("")
    loop = BattleState.event_handlers["follow_changes"].fn(signed_out)
    async for _event in loop:
        break
    assert not await threats.watched()

    state = _state(await sign_in(session, "viewer@example.com"))
    task = asyncio.ensure_future(BattleState.event_handlers["follow_changes"].fn(state).__anext__())
    for _ in range(50):
        if await threats.watched():
            break
        await asyncio.sleep(0.05)
    task.cancel()
    assert await threats.watched()


async def test_the_button_leaves_the_defender_to_the_servers_rule(session, monkeypatch):
    """Spec section 7: a random agent is chosen for a defend request. The page names none, so the server's one
    rule (drills.defender) picks it, as for the API's defend request without aiAgentId."""
    asked: list[dict] = []

    async def start_drill(*, session, **kwargs):
        asked.append(kwargs)
        slug, agent = drills.defender(kwargs.get("agent_id"))
        return BattleOperation(id=7, job_id=70, attack_type=kwargs["attack_type"], site=slug, agent_id=agent)

    class Picks(random.Random):
        def choice(self, seq):
            assert tuple(seq) == PLATFORM_AGENT_IDS
            return "gem"

    monkeypatch.setattr(drills, "start_drill", start_drill)
    monkeypatch.setattr(drills, "_rng", Picks())
    await make_user(session, "admin@example.com", role="admin")
    state = _state(await sign_in(session, "admin@example.com"))
    await BattleState.event_handlers["trigger"].fn(state, attack_type="phishing")
    assert [a.get("agent_id") for a in asked] == [None] and state.pending and state.active_site == "Gem"
