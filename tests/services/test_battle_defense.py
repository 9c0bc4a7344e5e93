"""The demo sites can really be attacked, and a defense configuration (data, validated) really defends them.

For each of the six attack types: against the weak default a small attack gets through; a correct
configuration blocks it and lets benign traffic pass; an over-broad one blocks benign traffic too (so a
drill's score can punish it). The request log counts each operation's attack and benign requests.
"""

from __future__ import annotations

import asyncio
import json

import httpx
import pytest
from sqlmodel import select

from secdash.core.db import session_scope
from secdash.models import HistoryLog
from secdash.services.battle import defense, demo_app, request_log
from secdash.services.battle.request_log import drill_header
from secdash.services.errors import Invalid, NotFound, PermissionDenied
from tests.factories import make_user
from tests.support.api_app import shared_api
from tests.support.battle import demo_sites_client

ATTACKER = "198.51.100.66"
VISITORS = ("203.0.113.10", "203.0.113.11", "203.0.113.12")


@pytest.fixture
async def http(session, monkeypatch, settings):
    async with demo_sites_client(monkeypatch, settings) as client:
        yield client


async def send(http, method, path, *, op="op1", traffic="attack", client=ATTACKER, headers=None, **kwargs) -> httpx.Response:
    headers = {**(headers or {}), "X-SecDash-Drill": drill_header(op, traffic, client)}
    return await http.request(method, path, headers=headers, **kwargs)


async def deploy(session, slug, config):
    return await defense.deploy_defense(session, slug, config, operation_id="op-test")


async def counts(session, op="op1"):
    return await request_log.operation_counts(session, op)


# --- SQL injection ----------------------------------------------------------------------------------------

SQLI = [
    "%' OR 1=1 --",
    "' UNION SELECT username, password_hash FROM members --",
    "' UNION SELECT name, sql FROM sqlite_master --",
]
SQLI_DEFENSE = {
    "patterns": [
        {"name": "sqli", "pattern": r"'|--|\bunion\b|\bor\b\s+\d+\s*=\s*\d+", "targets": ["query"], "endpoints": ["search"]}
    ]
}


async def test_sql_injection_reads_hidden_rows_until_a_pattern_blocks_it(http, session):
    benign = await send(http, "GET", "/demo/stock/search", params={"q": "Port"}, traffic="benign", client=VISITORS[0])
    assert benign.status_code == 200 and "Portfolio Tracker" in benign.text
    assert "Insider Preview" not in benign.text  # hidden rows stay hidden for an honest query
    everything = await send(http, "GET", "/demo/stock/search", params={"q": SQLI[0]})
    assert everything.status_code == 200 and "Insider Preview (unreleased)" in everything.text
    members = await send(http, "GET", "/demo/stock/search", params={"q": SQLI[1]})
    assert "alice" in members.text and "bob" in members.text

    await deploy(session, "stock", SQLI_DEFENSE)
    for payload in SQLI:
        blocked = await send(http, "GET", "/demo/stock/search", params={"q": payload})
        assert blocked.status_code == 403 and "pattern:sqli" in blocked.text
        assert "alice" not in blocked.text
    again = await send(http, "GET", "/demo/stock/search", params={"q": "Port"}, traffic="benign", client=VISITORS[0])
    assert again.status_code == 200 and "Portfolio Tracker" in again.text
    assert await counts(session) == request_log.TrafficCounts(attack_sent=5, attack_blocked=3, benign_sent=2, benign_blocked=0)


def test_the_injectable_database_is_a_read_only_throwaway_file(settings):
    path = demo_app.ensure_demo_db("gem")
    assert path.parent == settings.DATA_DIR / "demo_sites" and path.name == "gem.sqlite3"
    assert str(path) not in settings.database_url
    # The injection reads; it cannot write, attach another file, or read the console's tables.
    for payload in (
        "'; DELETE FROM products; --",
        "' UNION SELECT 1, 2 FROM users --",
        "' UNION SELECT 1, (SELECT count(*) FROM pragma_database_list) --",
    ):
        assert demo_app.search_products("gem", payload).error
    assert len(demo_app.search_products("gem", "%' OR 1=1 --").rows) == 4


# --- XSS --------------------------------------------------------------------------------------------------

XSS = ["<script>alert(document.cookie)</script>", "<img src=x onerror=alert(1)>", "<a href='javascript:alert(1)'>x</a>"]
XSS_DEFENSE = {"patterns": [{"name": "xss", "pattern": r"<\s*script|\bon\w+\s*=|javascript:", "targets": ["query", "body"]}]}


async def test_reflected_xss_is_echoed_until_a_pattern_blocks_it(http, session):
    for payload in XSS:
        echoed = await send(http, "GET", "/demo/tour/comment", params={"text": payload})
        assert echoed.status_code == 200 and payload in echoed.text  # reflected unescaped
        assert "sandbox allow-scripts allow-forms" in echoed.headers.get_list("content-security-policy")
    await deploy(session, "tour", XSS_DEFENSE)
    for payload in XSS:
        assert (await send(http, "GET", "/demo/tour/comment", params={"text": payload})).status_code == 403
    kind = await send(
        http, "GET", "/demo/tour/comment", params={"text": "Great tour, <b>thanks</b>!"}, traffic="benign", client=VISITORS[1]
    )
    assert kind.status_code == 200 and "Great tour" in kind.text
    assert await counts(session) == request_log.TrafficCounts(attack_sent=6, attack_blocked=3, benign_sent=1)


# --- malware ----------------------------------------------------------------------------------------------

MALWARE_DEFENSE = {"uploads": {"signatures": [{"name": "eicar", "text": demo_app.EICAR}], "blocked_extensions": [".exe"]}}


async def test_the_eicar_test_file_is_accepted_until_a_signature_blocks_it(http, session):
    files = {"file": ("invoice.com", demo_app.EICAR.encode())}
    accepted = await send(http, "POST", "/demo/gem/upload", files=files)
    assert accepted.status_code == 200 and accepted.json()["accepted"] is True
    await deploy(session, "gem", MALWARE_DEFENSE)
    blocked = await send(http, "POST", "/demo/gem/upload", files=files)
    assert blocked.status_code == 403 and "upload:eicar" in blocked.text
    assert (await send(http, "POST", "/demo/gem/upload", files={"file": ("x.exe", b"MZ....")})).status_code == 403
    report = await send(
        http,
        "POST",
        "/demo/gem/upload",
        files={"file": ("report.txt", b"quarterly figures")},
        traffic="benign",
        client=VISITORS[2],
    )
    assert report.status_code == 200 and report.json()["bytes"] == len(b"quarterly figures")


async def test_an_upload_above_the_sites_cap_is_refused_without_a_defense(http):
    big = b"x" * (demo_app.MAX_BODY_BYTES + 10)
    response = await send(http, "POST", "/demo/gem/upload", files={"file": ("big.bin", big)})
    assert response.status_code == 413


async def test_a_malformed_form_is_refused_and_still_logged(http, session):
    broken = await send(
        http,
        "POST",
        "/demo/gem/upload",
        content=b"--xyz\r\nno headers here",
        headers={"Content-Type": "multipart/form-data; boundary=xyz"},
    )
    assert broken.status_code == 400
    assert "sandbox allow-scripts allow-forms" in broken.headers.get_list("content-security-policy")
    assert [(r.endpoint, r.status_code) for r in await request_log.recent_requests(session, "gem")] == [("upload", 400)]


# --- brute force ------------------------------------------------------------------------------------------

BRUTE_DEFENSE = {"rate_limits": [{"name": "login", "requests": 5, "window_seconds": 60, "endpoints": ["login"]}]}
GUESSES = ["123456", "password", "qwerty", "111111", "abc123", "iloveyou", "monkey", "letmein", "dragon", "dragon2024"]


async def test_password_guessing_is_unlimited_until_a_rate_limit_stops_it(http, session):
    answers = [await send(http, "POST", "/demo/shares/login", data={"username": "demo", "password": guess}) for guess in GUESSES]
    assert [a.status_code for a in answers] == [401] * 9 + [200]  # never slowed down: the last guess got in
    await deploy(session, "shares", BRUTE_DEFENSE)
    later = [
        await send(
            http, "POST", "/demo/shares/login", data={"username": "demo", "password": guess}, op="op2", client="198.51.100.67"
        )
        for guess in GUESSES
    ]
    assert [a.status_code for a in later] == [401] * 5 + [429] * 5
    member = await send(
        http,
        "POST",
        "/demo/shares/login",
        data={"username": "alice", "password": "sunshine1"},
        op="op2",
        traffic="benign",
        client=VISITORS[0],
    )
    assert member.status_code == 200 and "Welcome back, alice" in member.text
    assert await counts(session, "op2") == request_log.TrafficCounts(attack_sent=10, attack_blocked=5, benign_sent=1)


# --- phishing ---------------------------------------------------------------------------------------------

PHISHING = [
    "https://xn--stckai-zwe.example/login",
    "https://st0ckai.example/verify",
    "http://stockaii.example/",
    "https://stockai.example.account-verify.top/",
    "https://evil.test/pay",
]
PHISHING_DEFENSE = {"urls": {"block_punycode": True, "block_lookalikes": True, "blocked_domains": ["evil.test"]}}


async def test_look_alike_and_punycode_links_are_published_until_url_checks_refuse_them(http, session):
    for url in PHISHING:
        published = await send(http, "POST", "/demo/stock/report-link", data={"url": url})
        assert published.status_code == 200 and "Link published" in published.text, url
    await deploy(session, "stock", PHISHING_DEFENSE)
    rules = []
    for url in PHISHING:
        refused = await send(http, "POST", "/demo/stock/report-link", data={"url": url})
        assert refused.status_code == 403, url
        rules.append(refused.text.rsplit("(", 1)[-1].rstrip(")"))
    assert rules == ["url:punycode", "url:lookalike", "url:lookalike", "url:lookalike", "url:blocked evil.test"]
    for url in ("https://stockai.example/help", "https://en.wikipedia.org/wiki/Phishing", "https://docs.python.org/"):
        fine = await send(http, "POST", "/demo/stock/report-link", data={"url": url}, traffic="benign", client=VISITORS[1])
        assert fine.status_code == 200, url


# --- DDoS -------------------------------------------------------------------------------------------------

DDOS_DEFENSE = {"rate_limits": [{"name": "flood", "requests": 20, "window_seconds": 10}]}


async def test_a_burst_is_served_in_full_until_a_rate_limit_caps_each_client(http, session):
    burst = [await send(http, "GET", "/demo/stock/") for _ in range(30)]
    assert all(r.status_code == 200 for r in burst)
    await deploy(session, "stock", DDOS_DEFENSE)
    capped = [await send(http, "GET", "/demo/stock/", op="op2", client="198.51.100.99") for _ in range(30)]
    assert [r.status_code for r in capped] == [200] * 20 + [429] * 10
    assert capped[-1].headers["x-frame-options"] == "DENY"  # a refused page keeps the site's own headers
    visitors = [await send(http, "GET", "/demo/stock/", op="op2", traffic="benign", client=v) for v in VISITORS]
    assert all(r.status_code == 200 for r in visitors)
    assert await counts(session, "op2") == request_log.TrafficCounts(attack_sent=30, attack_blocked=10, benign_sent=3)


async def test_the_monitors_signed_probes_are_never_rate_limited_but_the_rest_of_the_defense_applies(http, session):
    """A DDoS drill leaves Stock a page limit of 10 a minute per client: SecDash's own monitor, probing every few
    seconds, was refused (429) and showed a healthy Stock as CHECKING (a CI run failed on it)."""
    await deploy(
        session,
        "stock",
        {
            "rate_limits": [{"name": "page-flood", "requests": 3, "window_seconds": 60, "endpoints": ["pages"]}],
            "patterns": [{"name": "no-drop", "pattern": "(?i)drop\\s+table"}],
        },
    )
    probes = [await http.get("/demo/stock/", headers=request_log.monitor_headers()) for _ in range(6)]
    assert [r.status_code for r in probes] == [200] * 6
    # A forged mark from the same machine is an ordinary client (the window already holds its 6 requests).
    forged = [await http.get("/demo/stock/", headers={"X-SecDash-Monitor": "forged"}) for _ in range(2)]
    assert [r.status_code for r in forged] == [429, 429]
    matched = await http.get("/demo/stock/?q=drop%20table%20x", headers=request_log.monitor_headers())
    assert matched.status_code == 403  # only rate limits are skipped


async def test_a_concurrent_burst_is_capped_as_exactly_as_a_sequential_one(http, session):
    await deploy(session, "tour", DDOS_DEFENSE)
    burst = await asyncio.gather(*[send(http, "GET", "/demo/tour/") for _ in range(60)])
    assert sorted(r.status_code for r in burst) == [200] * 20 + [429] * 40
    assert await counts(session) == request_log.TrafficCounts(attack_sent=60, attack_blocked=40)


async def test_a_request_logged_while_an_earlier_one_of_its_client_is_uncommitted_waits_and_counts_it(session):
    """Why a burst stays exact on PostgreSQL: ids are taken at insert, so a later request could commit first and
    count the client's requests before its id without the earlier, uncommitted one (a burst of 60 against a limit
    of 20 let 21 through under load). A client's requests are logged one at a time; SQLite has one writer anyway."""
    facts = {"slug": "tour", "client": "198.51.100.9", "method": "GET", "path": "/demo/tour/", "endpoint": "pages"}

    async def later() -> int:
        async with session_scope() as own:
            row = await request_log.record(own, status_code=0, blocked=False, **facts)
            await own.commit()
            since = request_log.window_start(60)
            return await request_log.count_recent(
                own, slug="tour", client=facts["client"], since=since, endpoints=None, before_id=row.id
            )

    async with session_scope() as first:
        await request_log.record(first, status_code=0, blocked=False, **facts)
        await first.flush()  # inserted (its id taken), not committed
        second = asyncio.create_task(later())
        await asyncio.sleep(0.5)
        assert not second.done(), "the later request was logged before the earlier one committed"
        await first.commit()
    assert await asyncio.wait_for(second, 20) == 1


# --- over-broad defenses ------------------------------------------------------------------------------------

OVER_BROAD = [
    {"patterns": [{"name": "everything", "pattern": ".", "targets": ["path"]}]},
    {"rate_limits": [{"name": "one", "requests": 1, "window_seconds": 3600}]},
]


@pytest.mark.parametrize("config", OVER_BROAD)
async def test_an_over_broad_defense_also_blocks_benign_traffic(http, session, config):
    await deploy(session, "gem", config)
    for _ in range(2):
        await send(http, "GET", "/demo/gem/search", params={"q": "' OR 1=1 --"})
        await send(http, "GET", "/demo/gem/search", params={"q": "Ring"}, traffic="benign", client=VISITORS[0])
    measured = await counts(session)
    assert measured.attack_blocked >= 1 and measured.benign_blocked >= 1


# --- what is refused -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("config", "message"),
    [
        ({"patterns": [{"name": "bad", "pattern": "(unclosed"}]}, "does not compile"),
        ({"patterns": [{"name": "redos", "pattern": "(a+)+$"}]}, "nests a repeat inside a repeat"),
        ({"patterns": [{"name": "redos", "pattern": r"^(\w+\s?)*$"}]}, "nests a repeat inside a repeat"),
        ({"patterns": [{"name": "redos", "pattern": "(a|aa)+$"}]}, "catastrophic backtracking"),
        ({"patterns": [{"name": "backref", "pattern": r"(a)\1"}]}, "backreference"),
        ({"patterns": [{"name": "long", "pattern": "a" * 201}]}, "at most 200 characters"),
        ({"patterns": [{"name": "x", "pattern": ""}]}, "at least 1 character"),
        ({"patterns": [{"name": "x", "pattern": "a", "targets": ["cookies"]}]}, "patterns[0].targets[0]"),
        ({"rate_limits": [{"name": "zero", "requests": 0, "window_seconds": 10}]}, "greater than or equal to 1"),
        ({"rate_limits": [{"name": "forever", "requests": 5, "window_seconds": 10**7}]}, "less than or equal to 3600"),
        ({"rate_limits": [{"name": "huge", "requests": 10**9, "window_seconds": 10}]}, "less than or equal to 10000"),
        ({"uploads": {"max_bytes": 10**12}}, "uploads.max_bytes"),
        ({"urls": {"blocked_domains": ["not a domain"]}}, "is not a domain name"),
        ({"code": "import os; os.system('rm -rf /')"}, "code: Extra inputs are not permitted"),
        ({"patterns": [], "padding": "x" * 20_000}, "larger than 16384 bytes"),
        ({"patterns": [{"name": f"p{i}", "pattern": "a"} for i in range(26)]}, "at most 25 items"),
    ],
)
async def test_invalid_or_dangerous_configurations_are_refused_with_a_clear_message(session, config, message):
    with pytest.raises(Invalid, match="defense configuration") as refused:
        await defense.deploy_defense(session, "stock", config)
    assert message in refused.value.message
    assert (await defense.get_defense(session, "stock")).revision == 0  # nothing was deployed


def test_a_configuration_as_json_text_is_parsed_the_same():
    assert defense.parse_config(json.dumps(SQLI_DEFENSE)) == defense.parse_config(SQLI_DEFENSE)
    with pytest.raises(Invalid, match="not valid JSON"):
        defense.parse_config("{patterns: [")


# --- storage, reset, roles ------------------------------------------------------------------------------


async def test_the_defense_stays_until_an_admin_resets_it_to_the_weak_default(session):
    assert (await defense.get_defense(session, "tour")).config == defense.weak_default()
    deployed = await defense.deploy_defense(session, "tour", XSS_DEFENSE, operation_id="op7")
    assert (deployed.revision, deployed.source, deployed.operation_id) == (1, "drill", "op7")
    assert (await defense.get_defense(session, "tour")).config == defense.parse_config(XSS_DEFENSE)
    limited = await make_user(session, "viewer@example.com", role="limited")
    admin = await make_user(session, "ops@example.com", role="admin")
    with pytest.raises(PermissionDenied):
        await defense.reset_defense(session, "tour", limited)
    assert (await defense.get_defense(session, "tour")).revision == 1
    reset = await defense.reset_defense(session, "tour", admin)
    assert (reset.config, reset.revision, reset.source) == (defense.weak_default(), 2, "reset")
    entry = (await session.exec(select(HistoryLog).where(HistoryLog.action == "Defense reset"))).one()
    assert entry.category == "battle" and entry.details["site"] == "tour" and entry.actor_user_id == admin.id


async def test_only_the_four_demo_sites_have_defenses(session, http):
    with pytest.raises(NotFound, match="no demo site"):
        await defense.get_defense(session, "console")
    with pytest.raises(NotFound):
        await defense.deploy_defense(session, "../etc", XSS_DEFENSE)
    for path in ("/demo/console/search?q=x", "/demo/unknown/comment?text=x", "/demo/api/login"):
        response = await http.get(path)
        assert response.status_code == 404
        assert "sandbox allow-scripts allow-forms" in response.headers.get_list("content-security-policy")
    assert (await http.post("/demo/unknown/login", data={"username": "a"})).status_code == 404


# --- the drill marker -----------------------------------------------------------------------------------


async def test_a_forged_or_remote_drill_marker_is_ignored(session, monkeypatch, settings):
    monkeypatch.setattr(settings, "DEMO_SHARES_OUTAGE", "up")
    good = drill_header("op9", "attack", ATTACKER)
    forged = good[:-4] + ("0000" if not good.endswith("0000") else "1111")
    remote = httpx.ASGITransport(app=shared_api(), client=("203.0.113.200", 4444))
    local = httpx.ASGITransport(app=shared_api())
    async with httpx.AsyncClient(transport=local, base_url="http://testserver") as http:
        await http.get("/demo/stock/", headers={"X-SecDash-Drill": forged})
    async with httpx.AsyncClient(transport=remote, base_url="http://testserver") as http:
        await http.get("/demo/stock/", headers={"X-SecDash-Drill": good})
    assert await counts(session, "op9") == request_log.TrafficCounts()
    logged = await request_log.recent_requests(session, "stock")
    assert sorted(r.client for r in logged) == ["127.0.0.1", "203.0.113.200"]  # not the claimed client
    assert all(r.traffic is None and r.operation_id is None for r in logged)


async def test_the_request_log_keeps_the_newest_requests_per_site(session, http):
    for i in range(6):
        await send(http, "GET", f"/demo/stock/missing-{i}.html")
    await send(http, "GET", "/demo/tour/")
    await request_log.prune(session, "stock", keep=4)
    await session.commit()
    stock = await request_log.recent_requests(session, "stock")
    assert [r.path for r in stock] == [f"/demo/stock/missing-{i}.html" for i in (5, 4, 3, 2)]
    assert [r.status_code for r in stock] == [404] * 4 and not any(r.blocked for r in stock)
    assert len(await request_log.recent_requests(session, "tour")) == 1


def test_a_burst_of_first_requests_builds_one_good_demo_database(settings):
    """Concurrent first requests (a drill's burst) must not build the file together and leave it empty."""
    import concurrent.futures

    demo_app.demo_db_path("stock").unlink(missing_ok=True)
    demo_app._ready.clear()
    with concurrent.futures.ThreadPoolExecutor(16) as pool:
        results = list(pool.map(lambda _i: demo_app.check_login("stock", "demo", "dragon2024"), range(64)))
    assert all(results)
