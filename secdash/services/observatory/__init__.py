"""Header grade = MDN HTTP Observatory (v2) scoring: its tests, results, modifiers, extra credit and letter scale.

No Reflex, no database: `grade(Exchange(...))` returns a Report with every test's result, modifier and pass flag,
the score and the letter. Implemented from the reference's published rules (mdn/mdn-http-observatory, algorithm
version 4, release 1.4.8, plus the repository's Cross-Origin-Opener-Policy and -Embedder-Policy analyzers).
The HSTS preload list is Chromium's as the hstspreload package ships it. Known difference: a page the reference's
HTML parser rejects outright (html-not-parseable) is read leniently here.
"""

from __future__ import annotations

from dataclasses import dataclass

from secdash.services.observatory import checks, scoring
from secdash.services.observatory.cookies import cookies_test
from secdash.services.observatory.csp import csp_test
from secdash.services.observatory.inputs import Exchange, Hop, headers_from

__all__ = ["Exchange", "Hop", "Report", "TestResult", "grade", "headers_from"]


@dataclass(frozen=True)
class TestResult:
    name: str
    result: str
    modifier: int
    passed: bool

    @property
    def title(self) -> str:
        return scoring.TEST_TITLES[self.name]

    @property
    def description(self) -> str:
        return scoring.description(self.result)

    def as_json(self) -> dict[str, object]:
        return {"result": self.result, "modifier": self.modifier, "pass": self.passed}


@dataclass(frozen=True)
class Report:
    score: int
    grade: str
    tests: tuple[TestResult, ...]

    def test(self, name: str) -> TestResult:
        return next(test for test in self.tests if test.name == name)

    @property
    def tests_passed(self) -> int:
        return sum(test.passed for test in self.tests)


def grade(exchange: Exchange) -> Report:
    """Run every test on one exchange and score it as the reference does."""
    csp = csp_test(exchange)
    hsts = checks.hsts_test(exchange)
    outcomes = {
        "content-security-policy": (csp.result, csp.passed),
        "cookies": cookies_test(exchange, hsts_passed=hsts[1]),
        "cross-origin-resource-sharing": checks.cors_test(exchange),
        "redirection": checks.redirection_test(exchange),
        "referrer-policy": checks.referrer_test(exchange),
        "strict-transport-security": hsts,
        "subresource-integrity": checks.sri_test(exchange),
        "x-content-type-options": checks.x_content_type_options_test(exchange),
        "x-frame-options": checks.x_frame_options_test(exchange, csp.directives),
        "cross-origin-resource-policy": checks.corp_test(exchange),
        "cross-origin-opener-policy": checks.coop_test(exchange),
        "cross-origin-embedder-policy": checks.coep_test(exchange),
    }
    tests = tuple(
        TestResult(name, result, scoring.modifier(result), passed)
        for name, (result, passed) in ((name, outcomes[name]) for name in scoring.TEST_ORDER)
    )
    score = scoring.final_score([test.modifier for test in tests])
    return Report(score=score, grade=scoring.letter(score), tests=tests)
