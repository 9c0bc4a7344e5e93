"""What only SecDash knows about an attack: whether it is aimed at a hole its site has open.

A detection's severity starts from its scenario's family: **low** for reconnaissance and noise (probing missing
paths, crawling, scanner and bad user agents, open-proxy and w00tw00t requests), **medium** for attempts at a
weakness (SQL injection, XSS, path traversal, sensitive files, backdoors, CVE exploits, brute force, floods). It is
raised to **high**, with the reason, when it maps to an open finding of the same site:
- a requested path names the file of an open code finding (`/gem/appraise.js` and the finding in
  `gem/appraise.js`: the last path segment is the file's name);
- the family's weakness is the open code finding's (its CWE: SQL injection and CWE-89, path traversal and CWE-22...);
- XSS against a site whose probe reports no working Content-Security-Policy, or a session cookie without HttpOnly.
The first match in that order is the reason. Pure functions over the findings given; `open_findings` reads them.
"""

from __future__ import annotations

import posixpath
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from urllib.parse import unquote, urlsplit

from sqlmodel.ext.asyncio.session import AsyncSession

from secdash.models import EventType
from secdash.services.problems import events

LOW, MEDIUM, HIGH = "low", "medium", "high"
LOW_FAMILIES = frozenset({"probing", "crawl", "scanner", "bad-user-agent", "open-proxy", "w00tw00t"})
# The weaknesses (CWE ids, with their close relatives) an attack of a family tries.
FAMILY_CWES: dict[str, frozenset[int]] = {
    "sqli": frozenset({89, 564, 943}),
    "xss": frozenset({79, 80, 83, 87}),
    "path-traversal": frozenset({22, 23, 35, 36, 73}),
    "cve": frozenset({77, 78, 94, 95, 98, 502, 917}),
    "backdoors": frozenset({77, 78, 94, 95, 434}),
    "brute-force": frozenset({287, 307, 521, 798, 259}),
    "sensitive-files": frozenset({200, 532, 538, 548, 552}),
}
WEAKNESS_NAMES = {
    "sqli": "SQL injection",
    "xss": "cross-site scripting",
    "path-traversal": "path traversal",
    "cve": "code or command injection",
    "backdoors": "code injection or upload",
    "brute-force": "weak authentication",
    "sensitive-files": "information exposure",
}
# Site (header) findings that make XSS worse: no working CSP, or a session cookie scripts can read.
XSS_HEADER_WEAKNESSES = ("content-security-policy", "csp implemented unsafely", "session cookie set without the httponly")
MAX_REASON = 300


@dataclass(frozen=True)
class OpenFinding:
    """An open finding of a site: a code finding (file, rule, cwe) or a site (header) finding (text)."""

    event_id: int
    file: str = ""
    line: int = 0
    rule: str = ""
    cwe: int | None = None
    text: str = ""


def base_severity(family: str) -> str:
    return LOW if family in LOW_FAMILIES else MEDIUM


def _path(target: str) -> str:
    return unquote(urlsplit(target if target.startswith("/") else "/" + target).path)


def _where(finding: OpenFinding) -> str:
    place = f"{finding.file}:{finding.line}" if finding.line else finding.file
    return f"{place} ({finding.rule}{f', CWE-{finding.cwe}' if finding.cwe else ''})"


def _named_file(samples: Sequence[str], findings: Iterable[OpenFinding]) -> str | None:
    names = {posixpath.basename(_path(target)).lower() for target in samples}
    names.discard("")
    for finding in findings:
        if finding.file and posixpath.basename(finding.file).lower() in names:
            return f"it requested the file of an open finding: {_where(finding)}"
    return None


def _same_weakness(family: str, findings: Iterable[OpenFinding]) -> str | None:
    wanted = FAMILY_CWES.get(family)
    if not wanted:
        return None
    for finding in findings:
        if finding.cwe in wanted:
            return f"the site has an open {WEAKNESS_NAMES[family]} finding: {_where(finding)}"
    return None


def _weak_header(family: str, findings: Iterable[OpenFinding]) -> str | None:
    if family != "xss":
        return None
    for finding in findings:
        if finding.text and finding.text.lower().startswith(XSS_HEADER_WEAKNESSES):
            return f"the site's headers leave XSS open: {finding.text}"
    return None


def assess(family: str, samples: Sequence[str], findings: Sequence[OpenFinding]) -> tuple[str, str | None]:
    """A detection's severity, and why it was raised (None: not raised)."""
    code = [finding for finding in findings if finding.file]
    site = [finding for finding in findings if not finding.file]
    reason = _named_file(samples, code) or _same_weakness(family, code) or _weak_header(family, site)
    if reason is None:
        return base_severity(family), None
    return HIGH, reason[:MAX_REASON]


async def open_findings(session: AsyncSession, site_id: int) -> list[OpenFinding]:
    """The site's open findings (code findings of its sources, and its probe's header findings), oldest first."""
    rows = await events.open_of_type(session=session, event_type=EventType.vulnerability_detected, site_id=site_id)
    found = []
    for event in rows:
        details = event.details or {}
        cwe, line = details.get("cwe"), details.get("line")
        found.append(
            OpenFinding(
                event_id=event.id or 0,
                file=str(details.get("file") or ""),
                line=line if isinstance(line, int) and not isinstance(line, bool) else 0,
                rule=str(details.get("rule") or ""),
                cwe=cwe if isinstance(cwe, int) and not isinstance(cwe, bool) else None,
                text=str(details.get("finding") or ""),
            )
        )
    return found
