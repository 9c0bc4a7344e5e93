"""Leaky-bucket detection with CrowdSec's semantics: each expectation here was observed on CrowdSec 1.4.6
(Debian's binary, replay mode) with the same requests."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from secdash.services.traffic.detector import Detector, detect
from secdash.services.traffic.logformats import Request
from secdash.services.traffic.scenarios import ScenarioError, compile_scenario, load_scenarios

T0 = datetime(2023, 1, 10, 12, 0, 0, tzinfo=UTC)
SCENARIOS = load_scenarios()


def req(seconds: float, path: str, *, address: str = "45.1.0.3", status: int = 404, method: str = "GET",
        agent: str = "Mozilla/5.0", host: str = "") -> Request:  # fmt: skip
    return Request(
        time=T0 + timedelta(seconds=seconds), address=address, method=method, target=path, status=status, size=1,
        user_agent=agent, host=host,
    )  # fmt: skip


def found(requests, scenarios=SCENARIOS, **options):
    return [(d.address, d.scenario.name, d.events) for d in detect(requests, scenarios, **options)]


def test_eleven_distinct_missing_pages_at_once_are_probing_and_ten_are_not():
    assert found(req(0, f"/p{i}") for i in range(10)) == []
    assert found(req(0, f"/p{i}") for i in range(11)) == [("45.1.0.3", "http-probing", 11)]


def test_one_missing_page_a_second_overflows_on_the_twelfth():
    detections = detect((req(i, f"/p{i}") for i in range(20)), SCENARIOS)
    assert [(d.events, d.first_seen, d.last_seen) for d in detections] == [(12, T0, T0 + timedelta(seconds=11))]


def test_a_repeated_path_is_not_counted_and_does_not_extend_the_bucket():
    requests = [req(0, f"/p{i}") for i in range(10)] + [req(0, "/p3"), req(0, "/new")]
    assert found(requests) == [("45.1.0.3", "http-probing", 11)]


@pytest.mark.parametrize(("gap", "fires"), [(100, False), (110, False), (120, True)])
def test_a_bucket_left_alone_longer_than_capacity_plus_one_leaks_is_gone(gap, fires):
    """p0..p9, then the same ten and one new page `gap` seconds later: the old bucket (and what it has seen) lives
    for (10 + 1) x 10 s = 110 s."""
    requests = [req(0, f"/p{i}") for i in range(10)] + [req(gap, f"/p{i}") for i in range(10)] + [req(gap, "/q0")]
    assert bool(found(requests)) is fires


def test_after_a_detection_the_same_client_is_not_reported_again_for_the_blackhole():
    detections = detect((req(i, f"/p{i}") for i in range(400)), SCENARIOS)
    assert [d.last_seen - T0 for d in detections] == [timedelta(seconds=11), timedelta(seconds=311)]


def test_crawling_counts_distinct_file_names_not_paths():
    pages = found(req(i / 100, f"/x{i}.html", status=200, address="45.1.0.6") for i in range(45))
    assert pages == [("45.1.0.6", "http-crawl-non-statics", 41)]
    directories = [req(i / 100, f"/d{i}/", status=200, address="45.1.0.7") for i in range(45)]
    same_file = [req(i / 100, f"/x{i}/index.php", status=200, address="45.1.0.8") for i in range(45)]
    posts = [req(i / 100, f"/x{i}.html", status=200, address="45.1.0.9", method="POST") for i in range(45)]
    assert found(directories + same_file + posts) == []


def test_two_backdoor_names_are_a_detection_and_one_is_not():
    assert found([req(0, "/c99.php")]) == []
    assert found([req(0, "/c99.php"), req(0, "/r57.php")]) == [("45.1.0.3", "http-backdoors-attempts", 2)]


def test_a_trigger_fires_on_the_first_match_then_keeps_quiet():
    requests = [req(0, "/cgi-bin/.%2e/.%2e/etc/passwd", status=400), req(5, "/icons/.%2e/.%2e/x", status=400)]
    assert found(requests) == [("45.1.0.3", "http-cve-2021-41773", 1)]


def test_bad_user_agent_list_is_case_sensitive_as_crowdsecs_and_the_extra_scenario_is_not():
    nikto = [req(0, "/", status=200, agent="Mozilla Nikto/2.1"), req(1, "/a", status=200, agent="Mozilla Nikto/2.1")]
    sqlmap = [req(0, "/", status=200, agent="sqlmap/1.7.2#stable", address="192.0.2.77"),
              req(1, "/a", status=200, agent="sqlmap/1.7.2#stable", address="192.0.2.77")]  # fmt: skip
    assert ("45.1.0.3", "http-bad-user-agent", 2) in found(nikto)
    assert found(sqlmap) == [("192.0.2.77", "http-scanner-user-agent", 2)]


def test_sqli_probing_needs_eleven_distinct_payloads_in_the_query():
    payloads = [req(i / 1000, f"/item?id=1%20union%20select%20{i}", status=200) for i in range(11)]
    expected = [("45.1.0.3", "http-sqli-probing", 11), ("45.1.0.3", "http-sqli-probing-decoded", 11)]
    assert sorted(found(payloads)) == expected
    assert found(req(i / 10, "/item?id=1%20union%20select%201", status=200) for i in range(30)) == []


def test_loopback_and_private_clients_are_not_reported_unless_asked():
    requests = [req(0, f"/p{i}", address="10.1.2.3") for i in range(11)]
    assert found(requests) == []
    assert found(requests, allow=()) == [("10.1.2.3", "http-probing", 11)]


def test_per_site_scenarios_group_a_client_by_site():
    split = [req(0, f"/p{i}", host="a.example" if i % 2 else "b.example") for i in range(12)]
    assert found(split) == []  # six distinct misses on each of two sites
    detections = detect([req(0, f"/p{i}", host="a.example") for i in range(11)], SCENARIOS)
    assert [(d.scenario.name, d.host) for d in detections] == [("http-probing", "a.example")]


def test_a_request_line_that_is_not_http_is_not_detected():
    assert found(req(0, f"\\x16\\x03{i}", method="", status=400) for i in range(50)) == []


def test_the_detector_forgets_refilled_buckets():
    detector = Detector(SCENARIOS)
    for i in range(6000):
        detector.feed(req(i * 30, f"/p{i}", address=f"203.0.113.{i % 200}"))
    assert detector.live_buckets < 2000  # quiet clients' buckets are dropped at each sweep


def test_an_operator_scenario_is_data_and_bad_ones_are_named():
    scenario = compile_scenario(
        {"name": "admin-probe", "match": {"path_starts_with_nocase": ["/ADMIN"]}, "capacity": 2, "leakspeed": "1m"},
        "mine.yaml",
        [],
    )
    assert found((req(i, f"/admin/{i}", status=200) for i in range(3)), [scenario]) == [("45.1.0.3", "admin-probe", 3)]
    for raw, message in [
        ({"name": "x", "capacity": 1, "match": {"path_smells_like": "a"}}, "unknown condition"),
        ({"name": "x", "capacity": -1}, "capacity"),
        ({"name": "x", "capacity": 1, "leakspeed": "soon"}, "not a duration"),
        ({"name": "x", "capacity": 1, "match": {"user_agent_matches": ["(unclosed"]}}, "not an RE2"),
        ({"name": "x", "capacity": 1, "match": {"path_contains": {"file": "../etc/passwd"}}}, "without a folder"),
        ({"name": "../x"}, "name"),
    ]:
        with pytest.raises(ScenarioError, match=message):
            compile_scenario(raw, "mine.yaml", [])


def test_form_encoded_sqli_is_found_by_the_decoded_scenario_only():
    payloads = [req(i / 1000, f"/search?q=1'+union+select+{i},null--", status=200) for i in range(11)]
    assert found(payloads) == [("45.1.0.3", "http-sqli-probing-decoded", 11)]  # CrowdSec's list is %20-encoded
    words = [req(i / 1000, f"/search?q=select+a+plan+{i}", status=200) for i in range(30)]
    assert found(words) == []
