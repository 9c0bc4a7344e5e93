"""The header grade follows the MDN HTTP Observatory's published rules (tests, modifiers, extra credit, letters)."""

from __future__ import annotations

import json

import httpx
import pytest

from secdash.cli import main
from secdash.services.monitoring.header_grade import grade_headers
from secdash.services.observatory import Exchange, Hop, grade
from secdash.services.observatory.scoring import final_score, letter

HTML = ("Content-Type", "text/html")
GOOD = (
    HTML,
    ("Content-Security-Policy", "default-src 'self'"),
    ("Strict-Transport-Security", "max-age=31536000"),
    ("X-Frame-Options", "DENY"),
    ("X-Content-Type-Options", "nosniff"),
)


def result(test: str, *headers: tuple[str, str], **options) -> str:
    return grade(Exchange(headers=(HTML, *headers), **options)).test(test).result


@pytest.mark.parametrize(
    ("score", "expected"),
    [
        (140, "A+"),
        (100, "A+"),
        (99, "A"),
        (90, "A"),
        (85, "A-"),
        (80, "B+"),
        (70, "B"),
        (65, "B-"),
        (60, "C+"),
        (50, "C"),
        (45, "C-"),
        (40, "D+"),
        (30, "D"),
        (25, "D-"),
        (24, "F"),
        (0, "F"),
    ],
)
def test_the_letter_scale(score, expected):
    assert letter(score) == expected


def test_bonus_points_count_only_from_an_a():
    assert final_score([-10, 5, 10]) == 105  # 90 without the bonuses: they are added
    assert final_score([-15, 5, 10]) == 85  # 85: no extra credit
    assert final_score([-50, -40, -30]) == 0  # never below zero


def test_bonus_points_reach_a_plus():
    headers = (
        HTML,
        ("Content-Security-Policy", "default-src 'none'; frame-ancestors 'none'"),
        ("Strict-Transport-Security", "max-age=63072000"),
        ("X-Content-Type-Options", "nosniff"),
        ("Referrer-Policy", "no-referrer"),
        ("Cross-Origin-Resource-Policy", "same-origin"),
    )
    report = grade(Exchange(headers=headers))
    assert (report.grade, report.score) == ("A+", 130)  # 100 + CSP 10 + frame-ancestors 5 + referrer 5 + CORP 10
    assert report.test("x-frame-options").result == "x-frame-options-implemented-via-csp"


@pytest.mark.parametrize(
    "policy",
    [
        "default-src *",
        "default-src https:",
        "default-src 'self' data:",
        "script-src 'self' http:",
        "default-src 'self'; script-src 'unsafe-inline'",
        "img-src 'self'",
    ],
)  # no script-src / object-src under a broad default
def test_broad_or_inline_script_sources_fail(policy):
    assert result("content-security-policy", ("Content-Security-Policy", policy)) == "csp-implemented-with-unsafe-inline"


def test_unsafe_inline_beside_a_nonce_hash_or_strict_dynamic_is_not_charged():
    for policy in (
        "default-src 'none'; script-src 'unsafe-inline' 'nonce-abc'",
        "default-src 'none'; script-src 'unsafe-inline' 'sha256-abc='",
        "default-src 'none'; script-src 'strict-dynamic' 'nonce-abc' 'unsafe-inline' https:",
    ):
        assert (
            result("content-security-policy", ("Content-Security-Policy", policy))
            == "csp-implemented-with-no-unsafe-default-src-none"
        ), policy


@pytest.mark.parametrize(
    ("policy", "expected"),
    [
        ("default-src 'none'; default-src 'self'", "csp-header-invalid"),  # a repeated directive
        ("defa", "csp-header-invalid"),
        ("default-src 'none'; script-src 'strict-dynamic'", "csp-header-invalid"),  # strict-dynamic without nonce/hash
        ("default-src 'self'; script-src 'self' 'unsafe-eval'", "csp-implemented-with-unsafe-eval"),
        ("default-src 'self' http://cdn.example.com", "csp-implemented-with-insecure-scheme"),
        ("default-src 'self'; img-src http:", "csp-implemented-with-insecure-scheme-in-passive-content-only"),
        ("default-src 'self'; style-src 'unsafe-inline'", "csp-implemented-with-unsafe-inline-in-style-src-only"),
        ("DEFAULT-SRC 'NONE'", "csp-implemented-with-no-unsafe-default-src-none"),
    ],
)
def test_csp_results(policy, expected):
    assert result("content-security-policy", ("Content-Security-Policy", policy)) == expected


def test_a_meta_policy_counts_but_not_its_frame_ancestors_and_report_only_is_not_a_policy():
    body = "<html><head><meta http-equiv='Content-Security-Policy' content=\"default-src 'none'\"></head></html>"
    assert result("content-security-policy", body=body) == "csp-implemented-with-no-unsafe-default-src-none"
    only_frames = "<meta http-equiv='content-security-policy' content=\"frame-ancestors 'none'\">"
    assert result("content-security-policy", body=only_frames) == "csp-not-implemented"
    assert result("x-frame-options", body=only_frames) == "x-frame-options-not-implemented"
    assert (
        result("content-security-policy", ("Content-Security-Policy-Report-Only", "default-src 'none'"))
        == "csp-not-implemented-but-reporting-enabled"
    )


def test_several_policies_allow_only_what_every_one_allows():
    meta = "<meta http-equiv='Content-Security-Policy' content='default-src https:'>"
    report = grade(Exchange(headers=(HTML, ("Content-Security-Policy", "default-src http:")), body=meta))
    assert report.test("content-security-policy").result == "csp-implemented-with-no-unsafe-default-src-none"
    # two headers arrive as one value joined with ", " (as the reference's client reads them): one broad policy
    twice = grade(
        Exchange(
            headers=(HTML, ("Content-Security-Policy", "default-src http:"), ("Content-Security-Policy", "default-src https:"))
        )
    )
    assert twice.test("content-security-policy").result == "csp-implemented-with-unsafe-inline"


def test_a_session_cookie_is_charged_more_than_a_preference_cookie():
    session = grade(Exchange(headers=(*GOOD, ("Set-Cookie", "sessionid=1; Path=/; HttpOnly")))).test("cookies")
    preference = grade(Exchange(headers=(*GOOD, ("Set-Cookie", "theme=dark; Path=/")))).test("cookies")
    assert (session.result, session.modifier) == ("cookies-session-without-secure-flag-but-protected-by-hsts", -10)
    assert (preference.result, preference.modifier) == ("cookies-without-secure-flag-but-protected-by-hsts", -5)
    no_hsts = grade(Exchange(headers=(HTML, ("Set-Cookie", "sessionid=1; Secure")))).test("cookies")
    assert (no_hsts.result, no_hsts.modifier) == ("cookies-session-without-httponly-flag", -30)
    plain = grade(Exchange(headers=(HTML, ("Set-Cookie", "sessionid=1; HttpOnly")))).test("cookies")
    assert (plain.result, plain.modifier) == ("cookies-session-without-secure-flag", -40)


@pytest.mark.parametrize("same_site", ["SameSite=", "SameSite=True", "SameSite=Invalid"])
def test_an_invalid_samesite_fails(same_site):
    cookie = f"prefs=1; Secure; HttpOnly; {same_site}"
    assert result("cookies", ("Set-Cookie", cookie)) == "cookies-samesite-flag-invalid"


def test_samesite_is_an_attribute_not_a_name():
    assert result("cookies", ("Set-Cookie", "samesite_x=1; Secure")) == "cookies-secure-with-httponly-sessions"
    assert result("cookies", ("Set-Cookie", "x=1; Secure; SameSite=Lax")) == "cookies-secure-with-httponly-sessions-and-samesite"


@pytest.mark.parametrize(
    ("header", "value", "test", "expected"),
    [
        ("X-Frame-Options", "whimsy", "x-frame-options", "x-frame-options-header-invalid"),
        ("X-Frame-Options", "ALLOWALL", "x-frame-options", "x-frame-options-header-invalid"),
        ("Referrer-Policy", "origin", "referrer-policy", "referrer-policy-unsafe"),
        ("Referrer-Policy", "whimsy", "referrer-policy", "referrer-policy-header-invalid"),
        ("Strict-Transport-Security", "includeSubDomains", "strict-transport-security", "hsts-header-invalid"),
        (
            "Strict-Transport-Security",
            "max-age=86400",
            "strict-transport-security",
            "hsts-implemented-max-age-less-than-six-months",
        ),
        ("X-Content-Type-Options", "nosniff, nosniff", "x-content-type-options", "x-content-type-options-header-invalid"),
        ("Cross-Origin-Opener-Policy", "Same-Origin", "cross-origin-opener-policy", "coop-header-invalid"),
    ],
)
def test_header_values_are_validated(header, value, test, expected):
    assert result(test, (header, value)) == expected


def test_a_header_sent_twice_reads_as_one_joined_value():
    twice = (("Strict-Transport-Security", "max-age=31536000"), ("Strict-Transport-Security", "max-age=31536000"))
    assert result("strict-transport-security", *twice) == "hsts-header-invalid"
    assert result("x-frame-options", ("X-Frame-Options", "DENY"), ("X-Frame-Options", "DENY")) == "x-frame-options-header-invalid"


def test_plain_http_with_hsts_gets_the_references_c_plus():
    headers = (*GOOD, ("Referrer-Policy", "no-referrer"))
    report = grade(Exchange(headers=headers, scheme="http"))
    assert (report.grade, report.score) == ("C+", 60)
    assert report.test("strict-transport-security").result == "hsts-not-implemented-no-https"
    assert report.test("redirection").result == "redirection-missing"
    assert grade(Exchange(headers=headers)).grade == "A+"  # the same headers on https


@pytest.mark.parametrize(
    ("chain", "expected"),
    [
        ([("http://a.example/", 301), ("https://a.example/", 200)], "redirection-to-https"),
        ([("http://a.example/", 301), ("https://www.a.example/", 200)], "redirection-off-host-from-http"),
        (
            [("http://a.example/", 301), ("http://www.a.example/", 301), ("https://www.a.example/", 200)],
            "redirection-not-to-https-on-initial-redirection",
        ),
        ([("http://a.example/", 301), ("http://www.a.example/", 200)], "redirection-not-to-https"),
        ([("http://a.example/", 200)], "redirection-missing"),
        ([], "redirection-not-needed-no-http"),
    ],
)
def test_redirection(chain, expected):
    hops = tuple(Hop(url, status) for url, status in chain)
    assert result("redirection", http_redirects=hops) == expected


@pytest.mark.parametrize(
    ("script", "expected"),
    [
        ('<script src="/app.js"></script>', "sri-not-implemented-but-all-scripts-loaded-from-secure-origin"),
        ('<script src="https://cdn.example.net/a.js"></script>', "sri-not-implemented-but-external-scripts-loaded-securely"),
        (
            '<script src="https://cdn.example.net/a.js" integrity="sha384-x"></script>',
            "sri-implemented-and-external-scripts-loaded-securely",
        ),
        ('<script src="http://cdn.example.net/a.js"></script>', "sri-not-implemented-and-external-scripts-not-loaded-securely"),
        (
            '<script src="//cdn.example.net/a.js" integrity="sha384-x"></script>',
            "sri-implemented-but-external-scripts-not-loaded-securely",
        ),
        (
            '<script src="https://static.shop.example.com/a.js"></script>',
            "sri-not-implemented-but-all-scripts-loaded-from-secure-origin",
        ),  # same registrable domain
        ("<p>no scripts</p>", "sri-not-implemented-but-no-scripts-loaded"),
    ],
)
def test_subresource_integrity(script, expected):
    assert result("subresource-integrity", body=f"<html><body>{script}</body></html>", host="www.shop.example.com") == expected


def test_cors_with_credentials_for_an_echoed_origin_is_universal_access():
    headers = (("Access-Control-Allow-Origin", "https://evil.example"), ("Access-Control-Allow-Credentials", "true"))
    assert (
        result("cross-origin-resource-sharing", *headers, origin_sent="https://evil.example")
        == "cross-origin-resource-sharing-implemented-with-universal-access"
    )
    assert result("cross-origin-resource-sharing", *headers) == "cross-origin-resource-sharing-implemented-with-restricted-access"


def test_the_probe_adapter_keeps_repeated_cookies_and_leaves_out_secdashs_demo_sandbox():
    headers = httpx.Headers(
        [
            *GOOD,
            ("Content-Security-Policy", "sandbox allow-scripts allow-forms"),
            ("set-cookie", "theme=1; Secure"),
            ("set-cookie", "sessionid=2; Secure"),
        ]
    )
    graded = grade_headers(headers, is_https=True, url="https://shop.example.com/")
    assert "Session cookie set without the HttpOnly flag (-30)" in graded.findings
    csp = next(test for test in graded.tests if test.name == "content-security-policy")
    assert csp.result == "csp-implemented-with-no-unsafe"


def test_the_grade_command_prints_one_json_line_per_file_in_order(tmp_path, capsys):
    good = tmp_path / "good.txt"
    good.write_text(
        "HTTP/1.1 200 OK\r\nStrict-Transport-Security: max-age=63072000\r\nX-Frame-Options: DENY\r\n"
        "X-Content-Type-Options: nosniff\r\n\r\n"
        '<meta http-equiv="Content-Security-Policy" content="default-src \'none\'">\n'
    )
    bad = tmp_path / "bad.txt"
    bad.write_text("not a header line\n")
    assert main(["grade", str(good), str(bad)]) == 1
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [line["file"] for line in lines] == [str(good), str(bad)]
    assert lines[0]["grade"] == "A+" and lines[0]["score"] == 110
    assert lines[0]["tests"]["content-security-policy"] == {
        "result": "csp-implemented-with-no-unsafe-default-src-none",
        "modifier": 10,
        "pass": True,
    }
    assert len(lines[0]["tests"]) == 12 and "line 1" in lines[1]["error"]
    assert main(["grade", "--scheme", "http", str(good)]) == 0
    assert json.loads(capsys.readouterr().out)["grade"] == "C+"


def test_a_host_on_the_hsts_preload_list_is_preloaded():
    assert result("strict-transport-security", host="bugzilla.mozilla.org") == "hsts-preloaded"
    assert result("strict-transport-security", host="example.com") == "hsts-not-implemented"
