"""Collecting files to scan and scanning them with every engine of a scan type.

Engines: detect-secrets, bandit and the template check read one file at a time; semgrep reads a whole batch in one
run (it is started once per scan, never per file). A quick scan runs the fast engines at every severity
(detect-secrets, bandit, templates and semgrep with SecDash's rules); a full scan adds njsscan's rule pack.
Untrusted code is never parsed in the server's process: `scan_file_bounded` and `scan_batch_bounded` run in bounded
workers (core/bounded.py), with budgets.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Literal

from secdash.core import bounded
from secdash.services.code_scan import file_engines, semgrep, skips
from secdash.services.code_scan.skips import Skipped

ScanType = Literal["quick", "full"]
# Folders never read by any code tool of SecDash (also used by the builder's checks and Fix Mode's workspaces).
SKIP_DIRS = {".git", "node_modules", "__pycache__", ".venv", "venv", ".web", ".states", ".pytest_cache", ".ruff_cache"}
MAX_FILE_BYTES = 2_000_000
# Engines per scan type: (engine, rule pack) as the scan log names them.
PACKS: dict[str, tuple[str, ...]] = {"quick": ("secdash",), "full": ("secdash", "njsscan")}
ENGINES: dict[str, tuple[str, ...]] = {
    "quick": ("detect-secrets", "bandit", "templates", "semgrep (SecDash rules)"),
    "full": ("detect-secrets", "bandit", "templates", "semgrep (SecDash rules)", "semgrep (njsscan rules)"),
}
_RANK = {"high": 0, "medium": 1, "low": 2}


@dataclass(frozen=True)
class Finding:
    file: str
    line: int
    rule: str
    severity: str
    message: str
    tool: str  # the engine that found it: detect-secrets | bandit | templates | semgrep
    # What the finding flags, normalised (the line's text, whitespace collapsed; a secret's hash): with the
    # path and rule it is the finding's identity, so an edit elsewhere in the file does not make it "new".
    code: str = ""
    cwe: int | None = None
    confidence: str = "medium"  # high | medium | low
    also: tuple[str, ...] = ()  # other rules that flagged the same line for the same weakness

    @property
    def engine(self) -> str:
        return self.tool


def normalise_code(text: str) -> str:
    return " ".join(text.split())


def covers(scan_type: str, tool: str, rule: str = "") -> bool:
    """Whether a scan of this type runs the engine and rule pack that reported a finding (every severity)."""
    return scan_type != "quick" or not rule.startswith("njsscan:")


@dataclass(frozen=True)
class ScanTarget:
    path: Path
    display: str
    lines: int


def _head(path: Path) -> bytes:
    with path.open("rb") as handle:
        return handle.read(8192)


@dataclass
class Collected:
    targets: list[ScanTarget] = field(default_factory=list)
    skipped: list[Skipped] = field(default_factory=list)


def collect(roots: Sequence[Path], *, keep: Collection[str] = ()) -> Collected:
    """Every text file under the roots (a root may be a file) and, apart, each file a skip rule left out with its
    reason (skips.py; `keep` names the categories to scan anyway). Tool folders, binary and oversized files are
    not source and are left out without a word."""
    found = Collected()
    for root in roots:
        root = Path(root).resolve()
        files = [root] if root.is_file() else sorted(p for p in root.rglob("*") if p.is_file())
        base = root.parent if root.is_file() else root
        for path in files:
            relative = path.relative_to(base)
            if any(part in skips.TOOL_DIRS for part in relative.parts[:-1]):
                continue
            try:
                size = path.stat().st_size
                head = _head(path) if size <= MAX_FILE_BYTES else b""
            except OSError:
                continue
            if size > MAX_FILE_BYTES or b"\0" in head:
                continue
            display = relative.as_posix()
            rule = None if root.is_file() else (skips.by_path(display, keep) or skips.by_content(head, size, keep))
            if rule is not None:
                found.skipped.append(Skipped(display, rule.category, rule.why))
                continue
            with path.open("rb") as handle:
                lines = sum(1 for _ in handle)
            found.targets.append(ScanTarget(path=path, display=display, lines=lines))
    return found


def collect_targets(roots: Sequence[Path], *, keep: Collection[str] = ()) -> list[ScanTarget]:
    """The files a scan reads (see `collect`)."""
    return collect(roots, keep=keep).targets


def total_lines(targets: Sequence[ScanTarget]) -> int:
    return sum(target.lines for target in targets)


# --- findings ---------------------------------------------------------------------------------------------------


def _line_of(lines: list[str], number: int) -> str:
    return lines[number - 1] if 0 < number <= len(lines) else ""


def _priority(finding: Finding) -> tuple[int, int, str]:
    """Which of several findings of one weakness on one line is kept: the rules Fix Mode and earlier scans know
    (bandit, secrets, SecDash's web rules), then SecDash's data-flow rules, then njsscan's; then confidence."""
    prefix = finding.rule.split(":", 1)[0]
    tier = 0 if prefix in ("bandit", "secret", "js", "html", "tpl") else 1 if prefix in ("py", "node") else 2
    return tier, _RANK.get(finding.confidence, 1), finding.rule


# Weaknesses that rules of different engines name by neighbouring CWEs (merged as one).
CWE_FAMILY = {23: 22, 73: 22, 36: 22, 94: 95, 77: 78, 185: 1333, 400: 1333, 259: 798, 321: 798, 1004: 614, 1275: 614}


def _rule_set(finding: Finding) -> str:
    prefix = finding.rule.split(":", 1)[0]
    return {"js": "web", "html": "web", "py": "flow", "node": "flow"}.get(prefix, prefix)


def merge(findings: Sequence[Finding]) -> list[Finding]:
    """One finding per file, line and weakness (CWE family) across rule sets: the kept one lists the rules of the
    other sets that agree in `also` and takes the highest severity and confidence among them (a data-flow rule
    that agrees raises both). Findings of one rule set, and findings without a CWE, are kept as they are."""
    groups: dict[tuple[str, int, int], list[Finding]] = {}
    kept: list[Finding] = []
    for finding in findings:
        if finding.cwe is None:
            kept.append(finding)
        else:
            groups.setdefault((finding.file, finding.line, CWE_FAMILY.get(finding.cwe, finding.cwe)), []).append(finding)
    for group in groups.values():
        best = min(group, key=_priority)
        # Two checks of one rule set on one line are two findings (bandit's B603 and B607, each with its fix); one
        # check that matches twice on a line (two /tmp paths for B108) is one.
        seen_rules = {best.rule}
        for f in group:
            if _rule_set(f) == _rule_set(best) and f.rule not in seen_rules:
                seen_rules.add(f.rule)
                kept.append(f)
        agreeing = [best] + [f for f in group if _rule_set(f) != _rule_set(best)]
        others = tuple(sorted({f.rule for f in agreeing} - {best.rule}))
        confidence = min((f.confidence for f in agreeing), key=lambda c: _RANK.get(c, 1))
        severity = min((f.severity for f in agreeing), key=lambda c: _RANK.get(c, 1))
        kept.append(replace(best, also=tuple(sorted(set(best.also) | set(others))), confidence=confidence, severity=severity))
    return sorted(kept, key=lambda f: (f.file, f.line, f.rule))


def _file_findings(target: ScanTarget) -> list[Finding]:
    findings = [
        Finding(
            target.display,
            line,
            f"secret:{kind}",
            "high",
            f"Possible {kind} committed in source",
            "detect-secrets",
            code=f"secret-sha1:{secret_hash}",
            cwe=file_engines.SECRET_CWE,
            confidence=confidence,
        )
        for line, kind, secret_hash, confidence in file_engines.secrets(target.path)
    ]
    findings += [
        Finding(target.display, line, rule, "medium", message, "templates", cwe=file_engines.TEMPLATE_CWE, confidence="medium")
        for line, rule, message in file_engines.templates(target.path)
    ]
    if target.path.suffix.lower() == ".py":
        findings += [
            Finding(target.display, line, f"bandit:{test_id}", severity, message, "bandit", cwe=cwe, confidence=confidence)
            for line, test_id, severity, confidence, cwe, message in file_engines.bandit(target.path)
        ]
    return findings


def _language(path: Path) -> str:
    return "python" if path.suffix.lower() == ".py" else "javascript"


def _from_matches(run: semgrep.Run, by_display: dict[str, ScanTarget]) -> list[Finding]:
    findings = []
    for match in run.matches:
        target = by_display.get(match.file)
        if target is None:
            continue
        findings.append(
            Finding(
                match.file,
                match.line,
                match.rule,
                match.severity,
                match.message,
                "semgrep",
                cwe=match.cwe,
                confidence=match.confidence,
            )
        )
    return findings


def _finish(findings: list[Finding], texts: dict[str, list[str]], paths: dict[str, Path]) -> list[Finding]:
    """Each finding's code (its first line, normalised); credentials that are really messages dropped."""
    done = []
    for finding in findings:
        lines = texts.get(finding.file)
        if lines is None:
            lines = texts[finding.file] = paths[finding.file].read_text(errors="replace").splitlines()
        line = _line_of(lines, finding.line)
        if finding.cwe in (259, 798, 321) and finding.tool == "semgrep" and finding.rule not in semgrep.secret_by_position():
            literals = file_engines.string_literals(line, _language(paths[finding.file]))
            if literals and all(file_engines.is_prose(value) or file_engines.is_character_set(value) for value in literals):
                continue
        done.append(finding if finding.code else replace(finding, code=normalise_code(line)))
    return done


@dataclass
class BatchResult:
    findings: list[Finding]
    failed: dict[str, str]  # display path -> why (part of) it was not analysed by semgrep
    problem: str = ""  # why semgrep did not run at all (not installed, a rule file that does not load)


def semgrep_batch(targets: Sequence[ScanTarget], scan_type: ScanType, seconds: float) -> BatchResult:
    """One semgrep run over the batch with the scan type's rule packs."""
    by_display = {target.display: target for target in targets}
    try:
        run = semgrep.run([(target.path, target.display) for target in targets], PACKS[scan_type], seconds=seconds)
    except (semgrep.EngineMissing, semgrep.RuleError) as exc:
        return BatchResult([], {}, problem=f"semgrep did not run: {exc}")
    findings = _finish(_from_matches(run, by_display), {}, {t.display: t.path for t in targets})
    return BatchResult(merge(findings), run.failed)


def scan_file_engines(target: ScanTarget, scan_type: ScanType) -> list[Finding]:
    """The per-file engines (detect-secrets, bandit) on one file, every severity."""
    del scan_type  # both scan types run them whole
    findings = _file_findings(target)
    return merge(_finish(findings, {}, {target.display: target.path}))


def scan_files(targets: Sequence[ScanTarget], scan_type: ScanType, *, seconds: float | None = None) -> BatchResult:
    """Every engine of the scan type over the files: semgrep once for all of them, the others file by file."""
    batch = semgrep_batch(targets, scan_type, seconds if seconds is not None else semgrep_seconds(targets))
    per_file = [finding for target in targets for finding in _file_findings(target)]
    paths = {t.display: t.path for t in targets}
    return BatchResult(merge(_finish(per_file, {}, paths) + batch.findings), batch.failed)


def scan_file(target: ScanTarget, scan_type: ScanType) -> list[Finding]:
    """Every engine of the scan type on one file (semgrep started for it alone: use `scan_files` for many)."""
    return scan_files([target], scan_type).findings


# --- bounded workers --------------------------------------------------------------------------------------------

SCAN_FILE_SECONDS = 60.0  # one file's budget in its worker
SEMGREP_BASE_SECONDS = 60.0
SEMGREP_SECONDS_PER_LINE = 0.003  # 40,000 lines: 180 s on top of the base


def semgrep_seconds(targets: Sequence[ScanTarget]) -> float:
    """A batch's time budget, scaled to its size."""
    return SEMGREP_BASE_SECONDS + SEMGREP_SECONDS_PER_LINE * total_lines(targets)


async def scan_file_bounded(target: ScanTarget, scan_type: ScanType, *, semgrep_too: bool = True) -> list[Finding]:
    """One file in a bounded worker (core/bounded.py): every engine, or only the per-file ones when the caller
    runs semgrep over the whole scan (`scan_batch_bounded`). Raises bounded.BudgetExceeded or bounded.Busy."""
    function = scan_file if semgrep_too else scan_file_engines
    return await bounded.run(bounded.CODE, SCAN_FILE_SECONDS, function, target, scan_type)


async def scan_batch_bounded(targets: Sequence[ScanTarget], scan_type: ScanType) -> BatchResult:
    """semgrep over a whole scan in one bounded worker, within a budget scaled to the scan's size (semgrep's own
    budget is a little shorter, so it reports which files it could not finish). Raises bounded.BudgetExceeded or
    bounded.Busy; a semgrep that is not installed is the result's `problem`."""
    seconds = semgrep_seconds(targets)
    return await bounded.run(bounded.CODE, seconds + 15, semgrep_batch, list(targets), scan_type, seconds)


def not_scanned_reason(exc: bounded.BudgetExceeded | bounded.Busy) -> str:
    """What the scan log says of a file it could not scan."""
    if isinstance(exc, bounded.Busy):
        return "not scanned: every scan worker is busy"
    if exc.reason == "time":
        return f"not scanned: too large or complex to scan within {exc.seconds:g} s"
    return "not scanned: scanning it needed more memory than a scan may use"
