"""An attack seen in a site's own requests: its severity is raised when it is aimed at a hole the site has open, it
opens one problem per attacker and family (a drill's opens none, an admin's false positive keeps it closed), and
the "attack detected" rule pages at or above its severity (the demo sites never do)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from sqlmodel import col, select

from secdash.core.db import session_scope
from secdash.jobs import runner
from secdash.models import EventType, SecurityEvent, Site, TrafficDetection, utcnow
from secdash.models.alerting import AlertKind, NotificationDelivery
from secdash.services.alerting import channels, deliver_job, rules
from secdash.services.problems import events
from secdash.services.problems.resolution import resolve_event
from secdash.services.traffic import ingest
from secdash.services.traffic.detection import LiveDetection
from secdash.services.traffic.exposure import OpenFinding, assess
from tests.factories import make_user
from tests.support.notify_receivers import WebhookReceiver


def _line(target: str, n: int, address: str, later: timedelta) -> str:
    stamp = (utcnow() + later).strftime("%d/%b/%Y:%H:%M:%S +0000")
    return f'{address} - - [{stamp}] "GET {target}&n={n} HTTP/1.1" 200 10 "-" "Mozilla/5.0"'


def _sqli_lines(count: int = 12, address: str = "203.0.113.7", later: timedelta = timedelta(0)) -> list[str]:
    payloads = ["1%20UNION%20SELECT%20password%20FROM%20users", "1%27%20AND%20sleep(5)--", "1%20AND%20benchmark(9,md5(1))"]
    return [_line(f"/search?q={payloads[n % 3]}", n, address, later) for n in range(count)]


@pytest.fixture
def webhook():
    receiver = WebhookReceiver()
    yield receiver
    receiver.close()


@pytest.fixture(autouse=True)
def fast_retries(monkeypatch):
    monkeypatch.setattr(deliver_job, "BACKOFF_SECONDS", 0.01)


async def _site(session, name: str = "Shop", *, demo: bool = False) -> int:
    """A site's id (its row expires with every commit of the test's session)."""
    site = Site(name=name, domain=f"{name.lower()}.example", url=f"https://{name.lower()}.example/", is_demo=demo)
    session.add(site)
    await session.commit()
    await session.refresh(site)
    assert site.id is not None
    return site.id


async def _detect(lines: list[str], site_id: int) -> None:
    live = LiveDetection()
    async with session_scope() as own:
        await live.start(own)
    async with session_scope() as own:
        await ingest.ingest_lines(own, site_id, lines)
    async with session_scope() as own:
        while await live.step(own):
            pass


async def _open_finding(session, site_id: int, *, file: str, cwe: int, rule: str) -> None:
    events.record(
        session,
        event_type=EventType.vulnerability_detected,
        severity="high",
        description=f"{rule} in {file}",
        site_id=site_id,
        source="scanner",
        fingerprint=f"code:{file}:{rule}",
        details={"file": file, "line": 12, "rule": rule, "cwe": cwe, "tool": "semgrep"},
    )
    await session.commit()


async def _page_from(session, admin, severity: str) -> None:
    attack_rule = {"kind": "attack_detected", "params": {"severity": severity}}
    await rules.write(session=session, actor=admin, rules=[attack_rule], settings=None)


async def _attacks(session) -> list[SecurityEvent]:
    session.expire_all()
    query = select(SecurityEvent).where(SecurityEvent.event_type == EventType.attack_detected.value)
    return list(await session.exec(query.order_by(col(SecurityEvent.id))))


async def _deliveries(session) -> list[NotificationDelivery]:
    session.expire_all()
    return list(await session.exec(select(NotificationDelivery).order_by(col(NotificationDelivery.id))))


def test_an_attack_is_raised_when_it_aims_at_an_open_hole_of_its_site():
    eval_finding = OpenFinding(event_id=1, file="gem/appraise.js", line=12, rule="js:eval", cwe=95)
    sql_finding = OpenFinding(event_id=2, file="app/db.py", line=40, rule="py:sqli", cwe=89)
    no_csp = OpenFinding(event_id=3, text="Content-Security-Policy header not implemented")
    assert assess("probing", ["/wp-login.php"], []) == ("low", None)
    assert assess("sqli", ["/search?q=%27"], []) == ("medium", None)
    severity, why = assess("probing", ["/gem/appraise.js?x=1"], [eval_finding])
    assert severity == "high" and "gem/appraise.js:12 (js:eval, CWE-95)" in (why or "")
    severity, why = assess("sqli", ["/search?q=%27"], [eval_finding, sql_finding])
    assert severity == "high" and "SQL injection" in (why or "") and "app/db.py:40" in (why or "")
    severity, why = assess("xss", ["/?q=<script>"], [no_csp])
    assert severity == "high" and "Content-Security-Policy" in (why or "")
    assert assess("sqli", ["/search?q=%27"], [no_csp, eval_finding]) == ("medium", None)  # another weakness
    assert assess("probing", ["/index.html"], [OpenFinding(event_id=4, file="site/index.js", rule="r", cwe=1)])[0] == "low"


async def test_an_attack_on_an_open_hole_is_one_high_problem_and_one_page(session, webhook):
    admin = await make_user(session, "root@example.com", role="admin")
    await channels.create_channel(session=session, actor=admin, name="Ops", url=webhook.url(), allow_private=True)
    site = await _site(session)
    await _open_finding(session, site, file="app/search.py", cwe=89, rule="py:sqli-format")

    await _detect(_sqli_lines(), site)
    [problem] = await _attacks(session)
    problem_id = problem.id
    assert (problem.site_id, problem.severity, problem.source, problem.source_ip) == (site, "high", "traffic", "203.0.113.7")
    first_events = problem.details["events"]
    assert problem.details["raisedBecause"].startswith("the site has an open SQL injection finding: app/search.py:12")
    assert problem.details["samples"] and all(s.startswith("/search?q=") for s in problem.details["samples"])
    detection = (await session.exec(select(TrafficDetection))).first()
    assert detection is not None and detection.severity == "high" and problem.details["detectionId"] == detection.id

    [delivery] = await _deliveries(session)
    assert delivery.kind == AlertKind.attack_detected and "Attack on Shop" in delivery.title
    assert "app/search.py:12" in delivery.body and "203.0.113.7" in delivery.body
    assert delivery.job_id is not None
    await runner.wait_for(delivery.job_id, timeout=30)
    assert [title for title in webhook.titles() if "Attack on Shop" in title]  # delivered to the channel

    # the same attacker again, once the scenario's 5-minute blackhole is over: the same problem, no second page
    await _detect(_sqli_lines(later=timedelta(minutes=6)), site)
    [again] = await _attacks(session)
    assert again.id == problem_id and again.details["detections"] == 2 and again.details["events"] > first_events
    assert len(await _deliveries(session)) == 1


async def test_a_medium_attack_opens_a_problem_but_pages_only_when_the_rule_says_so(session, webhook):
    admin = await make_user(session, "root@example.com", role="admin")
    await channels.create_channel(session=session, actor=admin, name="Ops", url=webhook.url(), allow_private=True)
    site = await _site(session)
    await _detect(_sqli_lines(), site)
    [problem] = await _attacks(session)
    assert problem.severity == "medium" and problem.details["raisedBecause"] is None
    assert await _deliveries(session) == []  # the default rule pages from "high"

    await _page_from(session, admin, "medium")
    await _detect(_sqli_lines(address="203.0.113.8"), site)
    assert len(await _attacks(session)) == 2
    [delivery] = await _deliveries(session)
    assert delivery.kind == AlertKind.attack_detected and "203.0.113.8" in delivery.title


async def test_a_false_positive_stays_closed_and_a_demo_site_never_pages(session, webhook):
    admin = await make_user(session, "root@example.com", role="admin")
    await channels.create_channel(session=session, actor=admin, name="Ops", url=webhook.url(), allow_private=True)
    await _page_from(session, admin, "low")
    site = await _site(session)
    await _detect(_sqli_lines(), site)
    [problem] = await _attacks(session)
    assert problem.id is not None
    await resolve_event(session=session, actor=admin, event_id=problem.id, disposition="false_positive", note="our pentest")
    delivered = len(await _deliveries(session))

    await _detect(_sqli_lines(), site)  # the same client and family: an admin said it is nothing
    assert [(p.id, p.resolved) for p in await _attacks(session)] == [(problem.id, True)]
    assert len(await _deliveries(session)) == delivered

    demo = await _site(session, "Gem", demo=True)
    await _detect(_sqli_lines(address="203.0.113.9"), demo)
    assert any(p.site_id == demo and not p.resolved for p in await _attacks(session))  # a problem
    assert len(await _deliveries(session)) == delivered  # but no page
