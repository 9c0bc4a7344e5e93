"""Collecting files to scan and scanning one file with every engine that applies."""

from __future__ import annotations

import logging
import threading
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Literal

from secdash.core import bounded
from secdash.services.code_scan.web_rules import HTML_SUFFIXES, WEB_SUFFIXES, scan_web_source

ScanType = Literal["quick", "full"]
SKIP_DIRS = {".git", "node_modules", "__pycache__", ".venv", "venv", ".web", ".states", ".pytest_cache", ".ruff_cache"}
MAX_FILE_BYTES = 2_000_000
_SEVERITY = {"HIGH": "high", "MEDIUM": "medium", "LOW": "low"}
# detect-secrets and bandit keep process-wide settings: one file at a time.
_engine_lock = threading.Lock()


@dataclass(frozen=True)
class Finding:
    file: str
    line: int
    rule: str
    severity: str
    message: str
    tool: str
    # What the finding flags, normalised (the line's text, whitespace collapsed; a secret's hash): with the
    # path and rule it is the finding's identity, so an edit elsewhere in the file does not make it "new".
    code: str = ""


def normalise_code(text: str) -> str:
    return " ".join(text.split())


def covers(scan_type: str, severity: str) -> bool:
    """Whether a scan of this type looks for findings of this severity (quick: high only; full: all)."""
    return scan_type != "quick" or severity == "high"


@dataclass(frozen=True)
class ScanTarget:
    path: Path
    display: str
    lines: int


def _is_text(path: Path) -> bool:
    with path.open("rb") as handle:
        return b"\0" not in handle.read(8192)


def collect_targets(roots: Sequence[Path]) -> list[ScanTarget]:
    """Every text file under the roots (a root may be a file), skipping vendored and build folders."""
    targets = []
    for root in roots:
        root = Path(root).resolve()
        files = [root] if root.is_file() else sorted(p for p in root.rglob("*") if p.is_file())
        base = root.parent if root.is_file() else root
        for path in files:
            if any(part in SKIP_DIRS for part in path.relative_to(base).parts[:-1]):
                continue
            if path.stat().st_size > MAX_FILE_BYTES or not _is_text(path):
                continue
            with path.open("rb") as handle:
                lines = sum(1 for _ in handle)
            targets.append(ScanTarget(path=path, display=path.relative_to(base).as_posix(), lines=lines))
    return targets


def total_lines(targets: Sequence[ScanTarget]) -> int:
    return sum(target.lines for target in targets)


def _secrets(target: ScanTarget) -> list[Finding]:
    from detect_secrets.core.scan import scan_file as detect
    from detect_secrets.settings import default_settings

    with default_settings():
        found = {(secret.line_number, secret.type, secret.secret_hash) for secret in detect(str(target.path))}
    return [
        Finding(target.display, line, f"secret:{kind}", "high", f"Possible {kind} committed in source", "detect-secrets",
                code=f"secret-sha1:{secret_hash}")
        for line, kind, secret_hash in sorted(found)
    ]


def _bandit(target: ScanTarget, only_high: bool) -> list[Finding]:
    from bandit.core import config as bandit_config
    from bandit.core import manager as bandit_manager

    logging.getLogger("bandit").setLevel(logging.ERROR)
    manager = bandit_manager.BanditManager(bandit_config.BanditConfig(), "file", quiet=True)
    manager.discover_files([str(target.path)])
    manager.run_tests()
    findings = []
    for issue in manager.get_issue_list():
        severity = _SEVERITY.get(str(issue.severity).upper(), "low")
        if only_high and severity != "high":
            continue
        findings.append(Finding(target.display, issue.lineno, f"bandit:{issue.test_id}", severity, issue.text, "bandit"))
    return findings


def _web(target: ScanTarget, only_high: bool) -> list[Finding]:
    text = target.path.read_text(errors="replace")
    hits = scan_web_source(text, is_html=target.path.suffix.lower() in HTML_SUFFIXES, only_high=only_high)
    return [Finding(target.display, line, rule.rule, rule.severity, rule.message, "secdash-rules") for line, rule in hits]


def scan_file(target: ScanTarget, scan_type: ScanType) -> list[Finding]:
    """Quick: secrets plus high-severity rules. Full: secrets, every bandit finding, every web rule."""
    only_high = scan_type == "quick"
    with _engine_lock:
        findings = _secrets(target)
        suffix = target.path.suffix.lower()
        if suffix == ".py":
            findings += _bandit(target, only_high)
        if suffix in WEB_SUFFIXES:
            findings += _web(target, only_high)
    if any(not f.code for f in findings):
        lines = target.path.read_text(errors="replace").splitlines()
        findings = [f if f.code else replace(f, code=normalise_code(lines[f.line - 1]) if 0 < f.line <= len(lines) else "")
                    for f in findings]
    return sorted(findings, key=lambda f: (f.line, f.rule))


SCAN_FILE_SECONDS = 60.0  # one file's budget in its worker


async def scan_file_bounded(target: ScanTarget, scan_type: ScanType) -> list[Finding]:
    """`scan_file` in a bounded worker (core/bounded.py): the file's content decides the cost, so it never runs in
    the server's process. Raises bounded.BudgetExceeded (too large or complex to scan) or bounded.Busy."""
    return await bounded.run(bounded.CODE, SCAN_FILE_SECONDS, scan_file, target, scan_type)


def not_scanned_reason(exc: bounded.BudgetExceeded | bounded.Busy) -> str:
    """What the scan log says of a file it could not scan."""
    if isinstance(exc, bounded.Busy):
        return "not scanned: every scan worker is busy"
    if exc.reason == "time":
        return f"not scanned: too large or complex to scan within {exc.seconds:g} s"
    return "not scanned: scanning it needed more memory than a scan may use"
