"""The Live Code Builder's testing stage: real checks of a project's files once they are on disk.

HTML must parse with every non-void element closed; local `href`/`src`/`url(...)` references must resolve to
files of the project (a root-relative or network reference is a warning: the preview serves the project alone,
without network); JavaScript (files and inline `<script>` blocks) must pass `node --check`, which parses and never
runs; Python must compile (`compile` does not execute); and SecDash's own code scan runs over every file.

Only the listed project paths are read, each only if it stays inside the root once symlinks are resolved, and
only up to MAX_CHECK_BYTES. A reference is resolved as text against the project's paths, so one that leaves the
project (`../secret.js`) is reported missing without its target ever being opened. Messages name files by their
project path, never by where the project lives on the server.

The checks read content a model or a user wrote, so they run in a bounded worker (core/bounded.py): within
REVIEW_SECONDS, one `node --check` at a time per worker and at most MAX_INLINE_SCRIPTS inline scripts syntax-checked
per review. A review that runs out of its budget reports so, as a warning, and never stops the server.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path, PurePosixPath

from secdash.ai.files import safe_path
from secdash.core import bounded
from secdash.core.config import get_settings
from secdash.core.files import make_private_dir
from secdash.services.builder.check_types import (
    CHECKS,
    CSS_SUFFIXES,
    HTML_SUFFIXES,
    JS_SUFFIXES,
    PY_SUFFIXES,
    CheckFinding,
    CheckReport,
    InlineScript,
    SourceFile,
    shown,
)
from secdash.services.builder.markup import check_markup
from secdash.services.code_scan import ScanTarget, scan_files
from secdash.services.code_scan.engine import SKIP_DIRS

__all__ = ["CHECKS", "CheckFinding", "CheckReport", "run_checks"]

MAX_CHECK_BYTES = 512 * 1024
MAX_FINDINGS = 200
NODE_TIMEOUT = 10.0  # seconds per `node --check`
MAX_INLINE_SCRIPTS = 30  # inline <script> blocks syntax-checked per review (one `node --check` each)
REVIEW_SECONDS = 90.0  # the whole review's budget in its worker
SCAN_SECONDS = 45.0  # semgrep's share of it
MAX_MESSAGE_CHARS = 300

_NODE_LOCATION = re.compile(r"^(.*):(\d+)\s*$", re.MULTILINE)
_NODE_ERROR = re.compile(r"^((?:\w+Error|Error)\b.*)$", re.MULTILINE)


def _check_of(relative: str) -> str:
    suffix = PurePosixPath(relative).suffix.lower()
    if suffix in HTML_SUFFIXES:
        return "html"
    if suffix in JS_SUFFIXES:
        return "javascript"
    return "python" if suffix in PY_SUFFIXES else "scan"


# --- reading the project ---------------------------------------------------------------------------------------


def _load(root: Path, paths: Sequence[str], *, scan: bool) -> tuple[list[SourceFile], list[CheckFinding]]:
    """The files the checks read; a finding for each listed path that cannot or may not be read."""
    files, findings = [], []
    wanted = HTML_SUFFIXES | CSS_SUFFIXES | JS_SUFFIXES | PY_SUFFIXES
    for relative in dict.fromkeys(paths):
        check = _check_of(relative)
        if safe_path(relative) != relative:
            findings.append(CheckFinding(check, "error", "", None, f"not a safe project path: {shown(relative)}"))
            continue
        if not scan and PurePosixPath(relative).suffix.lower() not in wanted:
            continue
        path = root / relative
        try:
            real = path.resolve()
            if root not in real.parents:
                findings.append(CheckFinding(check, "error", relative, None, "leads outside the project; not checked"))
                continue
            if not real.is_file():
                findings.append(CheckFinding(check, "error", relative, None, "is not on disk"))
                continue
            if real.stat().st_size > MAX_CHECK_BYTES:
                findings.append(
                    CheckFinding(check, "warning", relative, None, f"is larger than {MAX_CHECK_BYTES // 1024} KB; not checked")
                )
                continue
            files.append(SourceFile(relative, real, real.read_bytes()))
        except OSError as exc:
            findings.append(CheckFinding(check, "error", relative, None, f"cannot be read ({exc.strerror or 'error'})"))
    return files, findings


# --- JavaScript -------------------------------------------------------------------------------------------------


def _node_environment() -> dict[str, str]:
    """No NODE_OPTIONS (it could preload code), nothing of the server's own environment beyond PATH."""
    return {"PATH": os.environ.get("PATH", os.defpath)}


def _node_check(node: str, timeout: float, path: Path, file: str, first_line: int, what: str) -> list[CheckFinding]:
    try:
        process = subprocess.run(  # noqa: S603 (node, a path of ours; `--check` parses and never runs)
            [node, "--check", str(path)],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            env=_node_environment(),
            timeout=timeout,
            preexec_fn=bounded.unlimited,
            check=False,
        )
    except subprocess.TimeoutExpired:
        return [
            CheckFinding(
                "javascript",
                "warning",
                file,
                first_line if what != "file" else None,
                f"syntax check of {what} did not finish within {timeout:g} s",
            )
        ]
    if process.returncode == 0:
        return []
    text = process.stderr.decode("utf-8", errors="replace")
    location = _NODE_LOCATION.search(text)
    line = first_line + int(location.group(2)) - 1 if location else None
    error = _NODE_ERROR.search(text)
    message = error.group(1) if error else f"node --check failed (exit {process.returncode})"
    if what != "file":
        message = f"{message} (in {what})"
    return [CheckFinding("javascript", "error", file, line, message.replace(str(path), file))]


def _check_javascript(
    files: Sequence[SourceFile], scripts: Sequence[InlineScript], node: str | None, timeout: float
) -> tuple[list[CheckFinding], int]:
    sources = [file for file in files if file.suffix in JS_SUFFIXES]
    if not sources and not scripts:
        return [], 0
    if node is None:
        return [
            CheckFinding(
                "javascript", "warning", "", None, "Node.js is not installed on the server; JavaScript was not syntax-checked"
            )
        ], 0
    findings = [finding for file in sources for finding in _node_check(node, timeout, file.path, file.relative, 1, "file")]
    checked, skipped = scripts[:MAX_INLINE_SCRIPTS], scripts[MAX_INLINE_SCRIPTS:]
    with tempfile.TemporaryDirectory(prefix="inline-", dir=make_private_dir(get_settings().scratch_dir)) as directory:
        for number, script in enumerate(checked, start=1):
            path = Path(directory) / f"inline-{number}{'.mjs' if script.module else '.js'}"
            path.write_text(script.source, encoding="utf-8")
            findings += _node_check(node, timeout, path, script.file, script.line, "an inline <script>")
    if skipped:
        first = skipped[0]
        findings.append(
            CheckFinding(
                "javascript",
                "warning",
                first.file,
                first.line,
                f"{len(skipped)} more inline <script> blocks were not syntax-checked (at most {MAX_INLINE_SCRIPTS} per check)",
            )
        )
    return findings, len(sources) + len(checked)


# --- Python and the code scan -----------------------------------------------------------------------------------


def _check_python(files: Sequence[SourceFile]) -> tuple[list[CheckFinding], int]:
    findings, checked = [], 0
    for file in files:
        if file.suffix not in PY_SUFFIXES:
            continue
        checked += 1
        try:
            compile(file.data, file.relative, "exec", dont_inherit=True)
        except SyntaxError as exc:
            findings.append(CheckFinding("python", "error", file.relative, exc.lineno, f"{type(exc).__name__}: {exc.msg}"))
        except ValueError as exc:
            findings.append(CheckFinding("python", "error", file.relative, None, f"does not compile: {exc}"))
        except (RecursionError, MemoryError):
            findings.append(CheckFinding("python", "error", file.relative, None, "too deeply nested to compile"))
    return findings, checked


def _scan(files: Sequence[SourceFile]) -> tuple[list[CheckFinding], int]:
    """SecDash's code scan over the files, semgrep started once for all of them."""
    targets = [
        ScanTarget(path=file.path, display=file.relative, lines=file.data.count(b"\n") + 1)
        for file in files
        if b"\0" not in file.data[:8192] and not any(part in SKIP_DIRS for part in PurePosixPath(file.relative).parts[:-1])
    ]
    if not targets:
        return [], 0
    result = scan_files(targets, "full", seconds=SCAN_SECONDS)
    findings = [CheckFinding("scan", "warning", "", None, result.problem)] if result.problem else []
    findings += [CheckFinding("scan", "warning", file, None, why) for file, why in sorted(result.failed.items())]
    for found in result.findings:
        rule = found.rule.removeprefix("bandit:")
        level = "error" if found.severity == "high" else "warning"
        findings.append(CheckFinding("scan", level, found.file, found.line, f"{rule} {found.message} ({found.severity})"))
    return findings, len(targets)


# --- the report -------------------------------------------------------------------------------------------------


def _clean(message: str, hidden: Sequence[str]) -> str:
    for secret in hidden:
        message = message.replace(secret + "/", "").replace(secret, ".")
    message = " ".join(message.split())
    return message if len(message) <= MAX_MESSAGE_CHARS else message[: MAX_MESSAGE_CHARS - 3] + "..."


def _bounded(findings: list[CheckFinding], order: dict[str, int]) -> tuple[CheckFinding, ...]:
    """By file (as listed), line and check; past MAX_FINDINGS errors are kept first and the rest summed up."""

    def place(finding: CheckFinding) -> tuple[int, int, int]:
        return order.get(finding.file, -1), finding.line or 0, CHECKS.index(finding.check)

    findings = sorted(findings, key=place)
    if len(findings) <= MAX_FINDINGS:
        return tuple(findings)
    ranked = sorted(findings, key=lambda finding: finding.level != "error")  # stable: keeps the order within
    kept, dropped = ranked[:MAX_FINDINGS], ranked[MAX_FINDINGS:]
    errors = sum(1 for finding in dropped if finding.level == "error")
    summary = CheckFinding(
        dropped[0].check, "error" if errors else "warning", "", None, f"... and {len(dropped)} more ({errors} errors)"
    )
    return (*sorted(kept, key=place), summary)


def _review(root_text: str, paths: Sequence[str], scan: bool, node: str | None, node_timeout: float) -> CheckReport:
    """Every check, in the worker (plain data in, plain data out)."""
    given, root = os.path.abspath(root_text), Path(root_text).resolve()
    files, findings = _load(root, paths, scan=scan)
    markup_findings, scripts, counts = check_markup(files, set(paths))
    findings += markup_findings
    stages = [("javascript", _check_javascript(files, scripts, node, node_timeout)), ("python", _check_python(files))]
    if scan:
        stages.append(("scan", _scan(files)))
    for check, (found, checked) in stages:
        findings += found
        counts[check] += checked
    hidden = sorted({given, str(root)}, key=len, reverse=True)
    findings = [replace(finding, message=_clean(finding.message, hidden)) for finding in findings]
    order = {path: index for index, path in enumerate(dict.fromkeys(paths))}
    return CheckReport(findings=_bounded(findings, order), counts={check: counts[check] for check in CHECKS})


async def run_checks(root: Path, paths: Sequence[str], *, scan: bool = True, owner: int | None = None) -> CheckReport:
    """Check the project whose files (`paths`, relative) are on disk under `root`; nothing in it is executed.
    The checks run in a bounded worker: one that runs out of its budget, or finds every worker busy, is reported
    as a warning (nothing was checked), never as a pass. `owner`, the user the checks are for, has a share of the
    workers of their own (bounded.CODE.per_owner)."""
    try:
        return await bounded.run(
            bounded.CODE, REVIEW_SECONDS, _review, str(root), list(paths), scan, shutil.which("node"), NODE_TIMEOUT, owner=owner
        )
    except bounded.BudgetExceeded as exc:
        why = f"did not finish within {exc.seconds:g} s" if exc.reason == "time" else "needed more memory than a check may use"
        message = f"The checks {why} (the files are too large or too complex to check); nothing was checked"
    except bounded.Busy as exc:
        message = (
            "Your earlier checks are still running" if exc.yours else "The server is busy with other checks"
        ) + "; nothing was checked: check again in a moment"
    return CheckReport(
        findings=(CheckFinding("scan" if scan else "html", "warning", "", None, message),), counts=dict.fromkeys(CHECKS, 0)
    )
