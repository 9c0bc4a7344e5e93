"""Grading one response's security headers, as the MDN HTTP Observatory does (simplified).

Start at 100 and subtract:
    Content-Security-Policy missing -25 (present with 'unsafe-inline'/'unsafe-eval' in scripts -10)
    Strict-Transport-Security missing on https -20 (max-age under 180 days -10)
    X-Frame-Options missing (and no CSP frame-ancestors) -20
    X-Content-Type-Options not "nosniff" -5
    Referrer-Policy missing or unsafe -5
    cookies without Secure (https) -10, without HttpOnly -10, without SameSite -5 (each once)
then A+ (100 with CSP and HSTS), A >= 90, B >= 80, C >= 70, D >= 60, E >= 50, else F.

A policy that is only `sandbox` (what SecDash adds to its own demo sites) protects the console, not
the site's scripts: it counts as no policy. Several policies (several headers, or one joined with
", ") are all enforced, so unsafe scripts cost points only when every script policy allows them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import httpx

HSTS_MIN_AGE = 15552000
UNSAFE_REFERRER = {"unsafe-url", "no-referrer-when-downgrade"}
GRADES = ((90, "A"), (80, "B"), (70, "C"), (60, "D"), (50, "E"))


@dataclass(frozen=True)
class HeaderGrade:
    score: int
    grade: str
    findings: list[str]


def _cookies(headers: Mapping[str, str] | httpx.Headers) -> list[str]:
    if isinstance(headers, httpx.Headers):
        return headers.get_list("set-cookie")
    value = {k.lower(): v for k, v in headers.items()}.get("set-cookie")
    return [value] if value else []


def _csp_policies(headers: Mapping[str, str] | httpx.Headers) -> list[str]:
    """Every policy sent, lower-cased, without those that are only a `sandbox` directive."""
    if isinstance(headers, httpx.Headers):
        values = headers.get_list("content-security-policy")
    else:
        values = [v for k, v in headers.items() if k.lower() == "content-security-policy"]
    policies = [p.strip().lower() for value in values for p in value.split(",") if p.strip()]
    names = [{d.split()[0] for d in p.split(";") if d.strip()} for p in policies]
    return [p for p, directives in zip(policies, names, strict=True) if directives and directives != {"sandbox"}]


def _script_rules(policy: str) -> list[str]:
    return [d.strip() for d in policy.split(";") if d.strip().startswith(("script-src", "default-src"))]


def grade_headers(headers: Mapping[str, str] | httpx.Headers, *, is_https: bool) -> HeaderGrade:
    """Score the security headers of one response."""
    lower = {k.lower(): v for k, v in headers.items()}
    findings: list[str] = []

    def penalty(points: int, text: str) -> None:
        findings.append(f"{text} (-{points})")

    policies = _csp_policies(headers)
    csp = ", ".join(policies)
    if not policies:
        penalty(25, "Content-Security-Policy header missing")
    else:
        script_policies = [rules for rules in (_script_rules(p) for p in policies) if rules]
        if script_policies and all(any("'unsafe-inline'" in d or "'unsafe-eval'" in d for d in rules)
                                   for rules in script_policies):
            penalty(10, "Content-Security-Policy allows unsafe-inline or unsafe-eval scripts")
    hsts = lower.get("strict-transport-security", "")
    if is_https:
        if not hsts:
            penalty(20, "Strict-Transport-Security header missing")
        else:
            age = next((d.split("=", 1)[1] for d in hsts.replace(" ", "").lower().split(";") if d.startswith("max-age=")), "0")
            if not age.isdigit() or int(age) < HSTS_MIN_AGE:
                penalty(10, "Strict-Transport-Security max-age under six months")
    if "x-frame-options" not in lower and "frame-ancestors" not in csp:
        penalty(20, "X-Frame-Options header missing")
    if lower.get("x-content-type-options", "").strip().lower() != "nosniff":
        penalty(5, "X-Content-Type-Options is not nosniff")
    referrer = lower.get("referrer-policy", "").strip().lower()
    if not referrer or referrer in UNSAFE_REFERRER:
        penalty(5, "Referrer-Policy missing or unsafe")
    cookies = [c.lower() for c in _cookies(headers)]
    if is_https and any("secure" not in [p.strip() for p in c.split(";")] for c in cookies):
        penalty(10, "Cookie without the Secure flag")
    if any("httponly" not in [p.strip() for p in c.split(";")] for c in cookies):
        penalty(10, "Cookie without the HttpOnly flag")
    if any("samesite" not in c for c in cookies):
        penalty(5, "Cookie without a SameSite attribute")
    score = max(0, 100 - sum(int(f.rsplit("(-", 1)[1].rstrip(")")) for f in findings))
    if score >= 100 and csp and hsts:
        grade = "A+"
    else:
        grade = next((letter for floor, letter in GRADES if score >= floor), "F")
    return HeaderGrade(score=score, grade=grade, findings=findings)
