"""A scan's findings as JSON or SARIF 2.1.0 (what code hosts read), and the CI exit code."""

from __future__ import annotations

import hashlib
from typing import Any

from secdash.services.code_scan.engine import ENGINES, Finding
from secdash.services.code_scan.project import ProjectScan

SEVERITIES = ("low", "medium", "high")
SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
_LEVEL = {"high": "error", "medium": "warning", "low": "note"}
_SECURITY_SEVERITY = {"high": "8.0", "medium": "5.0", "low": "2.0"}  # GitHub's scale for security rules


def at_or_above(findings: list[Finding], severity: str) -> list[Finding]:
    floor = SEVERITIES.index(severity)
    return [f for f in findings if SEVERITIES.index(f.severity) >= floor]


def exit_code(scan: ProjectScan, fail_on: str) -> int:
    """1: findings at or above `fail_on`; 2: no such findings but the scan is incomplete (an engine did not run or
    a file was not read), so it cannot say the code is clean; 0: clean."""
    if fail_on != "never" and at_or_above(scan.findings, fail_on):
        return 1
    return 0 if scan.complete else 2


def fingerprint(finding: Finding) -> str:
    """Stable across edits elsewhere in the file: rule, file and the normalised code (no line number)."""
    return hashlib.sha256("\0".join((finding.file, finding.rule, finding.code)).encode()).hexdigest()[:32]


def _finding(finding: Finding) -> dict[str, Any]:
    return {
        "file": finding.file,
        "line": finding.line,
        "rule": finding.rule,
        "cwe": f"CWE-{finding.cwe}" if finding.cwe else None,
        "severity": finding.severity,
        "confidence": finding.confidence,
        "engine": finding.engine,
        "message": finding.message,
        "alsoFlaggedBy": list(finding.also),
        "fingerprint": fingerprint(finding),
    }


def as_json(scan: ProjectScan, path: str) -> dict[str, Any]:
    return {
        "path": path,
        "scanType": scan.scan_type,
        "engines": list(ENGINES[scan.scan_type]),
        "files": len(scan.targets),
        "lines": sum(t.lines for t in scan.targets),
        "seconds": round(scan.seconds, 2),
        "complete": scan.complete,
        "problems": scan.problems,
        "notScanned": [{"file": file, "why": why} for file, why in sorted(scan.not_scanned.items())],
        "skipped": [{"file": s.file, "category": s.category, "why": s.why} for s in scan.skipped],
        "findings": [_finding(f) for f in scan.findings],
    }


def as_sarif(scan: ProjectScan, root_uri: str) -> dict[str, Any]:
    """SARIF 2.1.0: one run, a rule per rule id (with its CWE as a `CWE-<n>` tag), each result with its rule id,
    the file relative to the scanned folder (uriBaseId SRCROOT) and its start line."""
    rules: dict[str, dict[str, Any]] = {}
    results = []
    for finding in scan.findings:
        if finding.rule not in rules:
            tags = ["security"] + ([f"CWE-{finding.cwe}"] if finding.cwe else [])
            rules[finding.rule] = {
                "id": finding.rule,
                "name": finding.rule,
                "shortDescription": {"text": finding.message[:200]},
                "defaultConfiguration": {"level": _LEVEL[finding.severity]},
                "properties": {"tags": tags, "security-severity": _SECURITY_SEVERITY[finding.severity], "engine": finding.engine},
            }
        results.append(
            {
                "ruleId": finding.rule,
                "ruleIndex": list(rules).index(finding.rule),
                "level": _LEVEL[finding.severity],
                "message": {"text": finding.message},
                "locations": [
                    {
                        "physicalLocation": {
                            "artifactLocation": {"uri": finding.file, "uriBaseId": "SRCROOT"},
                            "region": {"startLine": max(finding.line, 1)},
                        }
                    }
                ],
                "partialFingerprints": {"secdashFinding/v1": fingerprint(finding)},
                "properties": {
                    "engine": finding.engine,
                    "confidence": finding.confidence,
                    "severity": finding.severity,
                    "cwe": f"CWE-{finding.cwe}" if finding.cwe else None,
                    "alsoFlaggedBy": list(finding.also),
                },
            }
        )
    notes = [{"level": "error", "message": {"text": problem}} for problem in scan.problems] + [
        {
            "level": "warning",
            "message": {"text": f"{file}: {why}"},
            "locations": [{"physicalLocation": {"artifactLocation": {"uri": file, "uriBaseId": "SRCROOT"}}}],
        }
        for file, why in sorted(scan.not_scanned.items())
    ]
    return {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "SecDash code scan",
                        "rules": list(rules.values()),
                        "properties": {"engines": list(ENGINES[scan.scan_type])},
                    }
                },
                "originalUriBaseIds": {"SRCROOT": {"uri": root_uri}},
                "invocations": [{"executionSuccessful": scan.complete, "toolExecutionNotifications": notes}],
                "results": results,
            }
        ],
    }
