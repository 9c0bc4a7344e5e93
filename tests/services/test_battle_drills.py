"""Drills end to end on the job system: baseline, the agent's defense deployed, re-run, score from the stored
counts; events, agent tally, History Logs; one drill per site; roles; refused defenses; simulated threats."""

from __future__ import annotations

import json
import random

import httpx
import pytest
from sqlmodel import select

from secdash.jobs import runner
from secdash.models import AgentRecord, BattleOperation, EventType, HistoryLog, SecurityEvent
from secdash.models.ai import AiCall
from secdash.services.agents import ai_calls
from secdash.services.battle import attacks, defense, drills, operations, request_log, scoring, sender, threats
from secdash.services.errors import Conflict, Invalid, PermissionDenied
from secdash.services.problems import events
from tests.factories import make_user
from tests.support.battle import in_process_demo_sites
from tests.support.fake_openai import DEFENSE_PLANS as FAKE_PLANS
from tests.support.fake_openai import FakeOpenAI
from tests.support.fixed_provider import FixedProvider


@pytest.fixture
async def demo(session, monkeypatch, settings):
    return await in_process_demo_sites(session, monkeypatch, settings)


async def run(session, admin, attack_type, **kwargs) -> BattleOperation:
    op = await drills.start_drill(session=session, actor=admin, attack_type=attack_type, **kwargs)
    op_id, job_id = op.id, op.job_id
    await runner.wait_for(job_id, timeout=120)
    session.expire_all()
    return await session.get(BattleOperation, op_id)


@pytest.mark.parametrize("attack_type", attacks.IDS)
async def test_a_drill_measures_damage_deploys_a_defense_and_scores_it(session, demo, attack_type):
    admin = await make_user(session, "root@example.com", role="admin")
    op = await run(session, admin, attack_type, attack_source="203.0.113.9")
    assert op.status == "defended", op.error
    base, after = scoring.counts_of(op.baseline), scoring.counts_of(op.after)
    assert base.attack_sent == after.attack_sent > 0 and base.benign_sent == after.benign_sent > 0
    assert base.attack_passed > 0 and op.baseline["damage"]  # the weak default let the attack do harm
    assert after.attack_blocked > base.attack_blocked and after.benign_blocked == 0
    # Reproducible from the stored counts, and equal to what the demo site logged for the re-run.
    assert op.effectiveness == scoring.score(after).effectiveness >= scoring.DEFENDED_SCORE
    assert await request_log.operation_counts(session, f"drill-{op.id}-after") == after
    assert op.defense_code and op.defense_strategy and op.mitre_technique == attacks.get(attack_type).technique.id
    deployed = await defense.get_defense(session, op.site)
    assert deployed.source == "drill" and deployed.operation_id == str(op.id) and deployed.revision == op.defense_revision

    blocked = (await session.exec(select(SecurityEvent).where(SecurityEvent.event_type == EventType.threat_blocked))).one()
    assert blocked.blocked_requests == after.attack_blocked and blocked.resolved
    assert await events.count_threats_blocked(session=session) == after.attack_blocked  # the Dashboard card
    assert await events.count_open(session=session) == 0  # a drill opens no problem to close
    agent = await session.get(AgentRecord, op.site)
    assert agent.status == "secured"
    actions = [row.action for row in await session.exec(select(HistoryLog).where(HistoryLog.category == "battle"))]
    assert {"Drill started", "Defense deployed", "Drill result"} <= set(actions)
    calls = (await session.exec(select(AiCall).where(AiCall.feature == "defense_plan"))).all()
    assert [c.outcome for c in calls] == ["ok"] and calls[0].provider == "offline"


async def test_the_agent_is_fighting_while_its_drill_runs_and_the_drill_is_listed_as_active(session, demo, monkeypatch):
    admin = await make_user(session, "root@example.com", role="admin")
    op = await drills.start_drill(session=session, actor=admin, attack_type="xss", agent_id="gem")
    op_id, job_id = op.id, op.job_id
    assert op.site == "gem" and (await session.get(AgentRecord, "gem")).status == "fighting"
    active = await operations.active_drills(session=session)
    assert [(a.attack_type, a.site, a.duration) for a in active] == [("xss", "gem", 300)]
    with pytest.raises(Conflict, match="already running against Gem"):
        await drills.start_drill(session=session, actor=admin, attack_type="malware", agent_id="gem")
    other = await drills.start_drill(session=session, actor=admin, attack_type="xss", agent_id="stock")  # another site
    other_id, other_job = other.id, other.job_id
    await runner.wait_for(job_id, timeout=120)
    await runner.wait_for(other_job, timeout=120)
    assert await operations.active_drills(session=session) == []
    listed = await operations.list_operations(session=session)
    assert [o.id for o in listed] == [other_id, op_id]  # newest first; the refused one left nothing behind


async def test_roles_and_bad_input_are_refused_before_anything_is_stored(session, demo):
    viewer = await make_user(session, "viewer@example.com", role="limited")
    admin = await make_user(session, "root@example.com", role="admin")
    with pytest.raises(PermissionDenied):
        await drills.start_drill(session=session, actor=viewer, attack_type="xss")
    with pytest.raises(Invalid, match="attackType must be one of"):
        await drills.start_drill(session=session, actor=admin, attack_type="nuke")
    with pytest.raises(Invalid, match="aiAgentId"):  # a drill cannot target anything but a demo site
        await drills.start_drill(session=session, actor=admin, attack_type="xss", agent_id="example.com")
    with pytest.raises(Invalid, match="attackSource"):
        await drills.start_drill(session=session, actor=admin, attack_type="xss", attack_source="x" * 65)
    with pytest.raises(PermissionDenied):
        await defense.reset_defense(session, "stock", viewer)
    assert (await session.exec(select(BattleOperation))).all() == []


async def test_drills_only_attack_this_machine(session, demo, settings, monkeypatch):
    monkeypatch.setattr(settings, "DEMO_BASE_URL", "http://203.0.113.50:3000")
    admin = await make_user(session, "root@example.com", role="admin")
    op = await run(session, admin, "ddos")
    assert op.status == "failed" and "only attack this machine" in op.error
    assert (
        op.baseline == {}
        and await request_log.operation_counts(session, f"drill-{op.id}-baseline") == request_log.TrafficCounts()
    )


async def test_a_defense_the_server_refuses_gets_one_retry_then_the_drill_fails(session, demo, monkeypatch):
    bad = FixedProvider({"strategy": "block it", "config": {"patterns": [{"name": "evil", "pattern": "(a+)+$"}]}})
    monkeypatch.setattr(ai_calls, "get_provider", lambda settings: bad)
    admin = await make_user(session, "root@example.com", role="admin")
    before = await defense.get_defense(session, "tour")
    op = await run(session, admin, "xss", agent_id="tour")
    assert bad.calls == 2 and op.status == "failed" and "refused twice" in op.error
    assert "repeat inside a repeat" in op.error
    assert (await defense.get_defense(session, "tour")).revision == before.revision  # nothing deployed
    assert op.effectiveness is None and (await session.get(AgentRecord, "tour")).status == "analyzing"
    assert (await session.exec(select(HistoryLog).where(HistoryLog.action == "Drill failed"))).one()


async def test_an_over_broad_defense_loses_visitors_and_scores_lower(session, demo, monkeypatch):
    broad = FixedProvider(
        {
            "strategy": "block every comment",
            "config": {"patterns": [{"name": "everything", "pattern": ".", "targets": ["query"], "endpoints": ["comment"]}]},
        }
    )
    monkeypatch.setattr(ai_calls, "get_provider", lambda settings: broad)
    admin = await make_user(session, "root@example.com", role="admin")
    op = await run(session, admin, "xss", agent_id="tour")
    after = scoring.counts_of(op.after)
    assert after.attack_blocked == after.attack_sent and after.benign_blocked == after.benign_sent > 0
    assert op.effectiveness == 0 and op.status == "partial"  # blocking everything is not a defense


async def test_a_simulated_threat_is_announced_then_starts_a_real_drill(session, demo, settings):
    class Always(random.Random):
        def random(self):
            return 0.0

    await threats.note_watching("a Battle Station tab")  # it runs only while someone watches
    op_id = await threats.tick(Always(7), delay=0)
    announcement = await threats.latest_announcement(session)
    assert announcement["simulated"] and announcement["operationId"] == op_id
    assert announcement["label"] == attacks.label(announcement["attackType"])
    op = await session.get(BattleOperation, op_id)
    assert op.simulated and op.started_by is None
    assert await threats.tick(Always(7), delay=0) is None  # not while a drill runs
    await runner.wait_for(op.job_id, timeout=120)
    session.expire_all()
    assert (await session.get(BattleOperation, op_id)).status == "defended"

    class Never(random.Random):
        def random(self):
            return 0.99

    assert await threats.tick(Never(1), delay=0) is None


@pytest.fixture
def model(settings, monkeypatch):
    """The configured engine is the local OpenAI-compatible test server."""
    fake = FakeOpenAI()
    monkeypatch.setattr(settings, "LLM_BASE_URL", fake.base_url)
    monkeypatch.setattr(settings, "LLM_MODEL", "echo")
    yield fake
    fake.close()


@pytest.mark.parametrize("attack_type", attacks.IDS)
async def test_with_a_model_the_drill_deploys_the_models_defense(session, demo, model, attack_type):
    admin = await make_user(session, "root@example.com", role="admin")
    op = await run(session, admin, attack_type)
    assert op.status in ("defended", "partial"), op.error
    assert op.provider == "openai-compatible" and op.defense_strategy.startswith("Model plan:")
    # What the model wrote is what was deployed (with the schema's defaults filled in).
    assert op.defense_config == defense.parse_config(FAKE_PLANS[attack_type]).model_dump(mode="json")
    after = scoring.counts_of(op.after)
    assert after.attack_blocked > 0 and op.effectiveness == scoring.score(after).effectiveness
    request = next(r for r in model.requests if r["body"].get("response_format", {}).get("type") == "json_schema")
    assert request["body"]["response_format"]["json_schema"]["name"] == "DefensePlan"
    calls = (await session.exec(select(AiCall).where(AiCall.feature == "defense_plan"))).all()
    assert [(c.provider, c.outcome) for c in calls] == [("openai-compatible", "ok")] and calls[0].prompt_tokens


async def test_a_model_answer_the_server_refuses_fails_the_drill_over_http_too(session, demo, model, settings, monkeypatch):
    monkeypatch.setattr(settings, "LLM_MODEL", "defense-invalid")
    admin = await make_user(session, "root@example.com", role="admin")
    op = await run(session, admin, "sql_injection")
    assert op.status == "failed" and "refused twice" in op.error
    assert len([r for r in model.requests if "DefensePlan" in json.dumps(r["body"].get("response_format", {}))]) == 2


async def test_a_demo_site_that_does_not_answer_fails_the_drill_instead_of_scoring_nothing(session, demo, monkeypatch):
    def unreachable() -> httpx.AsyncClient:  # nothing listens there: every request fails to connect
        return httpx.AsyncClient(base_url="http://127.0.0.1:9", timeout=2)

    monkeypatch.setattr(sender, "open_client", unreachable)
    admin = await make_user(session, "root@example.com", role="admin")
    op = await run(session, admin, "xss")
    assert op.status == "failed" and "logged none of the drill's requests" in op.error
    assert op.effectiveness is None and (await defense.get_defense(session, op.site)).revision == 0
