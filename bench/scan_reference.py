"""SecDash's code scan held against the field's reference tools on third-party application folders (figures printed,
never asserted).

For each folder: a full and a quick SecDash scan (the same engine and skip rules as the CLI and the dashboard) and
each reference tool that is installed, every finding normalised to (file, line, CWE family). Printed per folder:
findings and time per tool, the union of the reference tools, SecDash's recall of that union (a union finding is
recalled when SecDash reports the same file, a line within +-3 and the same CWE family; families as in
bench/scan_agreement.py), the same per kind (CWE family), what SecDash found that no reference tool found, and the
times. A reference tool that is not installed is skipped with a printed line.

The reference tools (never installed into SecDash's venv; give them by environment variable or on PATH):
  SECDASH_REF_NJSSCAN  njsscan's executable (its semgrep is looked up beside it)    default: `njsscan` on PATH
  SECDASH_REF_BANDIT   bandit's executable                                          default: `bandit` on PATH
  SECDASH_REF_ESLINT   a folder with node_modules/eslint and eslint-plugin-security (its recommended config)
  SECDASH_REF_NODE     the Node.js that runs eslint                                 default: `node` on PATH

    python -m bench scan_reference /tmp/ref_apps/dvna /tmp/ref_apps/vulpy
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from bench.scan_agreement import _family
from secdash.services.code_scan import collect, semgrep
from secdash.services.code_scan.project import scan

LINE_SLACK = 3
TOOL_SECONDS = 600
# eslint-plugin-security's rules carry no CWE: the weakness each one flags.
ESLINT_CWE = {
    "security/detect-bidi-characters": 451,
    "security/detect-buffer-noassert": 125,
    "security/detect-child-process": 78,
    "security/detect-disable-mustache-escape": 79,
    "security/detect-eval-with-expression": 95,
    "security/detect-new-buffer": 770,
    "security/detect-no-csrf-before-method-override": 352,
    "security/detect-non-literal-fs-filename": 22,
    "security/detect-non-literal-regexp": 1333,
    "security/detect-non-literal-require": 829,
    "security/detect-object-injection": 915,
    "security/detect-possible-timing-attacks": 208,
    "security/detect-pseudoRandomBytes": 338,
    "security/detect-unsafe-regex": 1333,
}

# Reference rules whose findings SecDash judges not actionable (the reason is printed with the figures): the njsscan
# rules its full scan leaves out (semgrep.EXCLUDED_RULES, each with its reason) and eslint's generic object-index
# marker. Recall is printed against the whole union and against the union without these.
NOT_ACTIONABLE = {
    **{f"njsscan:{rule}": why for rule, why in semgrep.EXCLUDED_RULES.items()},
    "eslint-plugin-security:security/detect-object-injection": "flags every obj[variable] read or write",
}


@dataclass(frozen=True)
class Hit:
    tool: str
    file: str  # relative to the application folder, POSIX
    line: int
    cwe: int | None
    rule: str

    @property
    def family(self) -> frozenset[int]:
        return _family(self.cwe)


@dataclass
class Outcome:
    tool: str
    hits: list[Hit] = field(default_factory=list)
    seconds: float = 0.0
    skipped: str = ""  # why the tool did not run


def _cwe(raw: object) -> int | None:
    if isinstance(raw, dict):
        raw = raw.get("id")
    if isinstance(raw, list):
        raw = raw[0] if raw else None
    match = re.search(r"(\d+)", str(raw or ""))
    return int(match.group(1)) if match else None


def _relative(root: Path, path: str) -> str:
    candidate = Path(path)
    if not candidate.is_absolute():
        candidate = root / candidate
    try:
        return candidate.resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        return Path(path).as_posix()


def _executable(variable: str, name: str) -> str | None:
    given = os.environ.get(variable)
    if given:
        return given if Path(given).is_file() and os.access(given, os.X_OK) else None
    return shutil.which(name)


# --- SecDash ------------------------------------------------------------------------------------------------------


def secdash(root: Path, scan_type: str) -> Outcome:
    started = time.perf_counter()
    collected = collect([root])
    result = asyncio.run(scan(collected.targets, scan_type, collected.skipped))  # type: ignore[arg-type]
    outcome = Outcome(f"SecDash {scan_type}", seconds=time.perf_counter() - started)
    for finding in result.findings:
        outcome.hits.append(Hit(outcome.tool, finding.file, finding.line, finding.cwe, "+".join((finding.rule, *finding.also))))
    if not result.complete:
        outcome.skipped = f"incomplete: {result.problems} {result.not_scanned}"
    return outcome


# --- the reference tools ------------------------------------------------------------------------------------------


def _run(command: Sequence[str], cwd: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        list(command),
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=TOOL_SECONDS,
        check=False,  # noqa: S603
        env=env,
        stdin=subprocess.DEVNULL,
    )


def njsscan(root: Path) -> Outcome:
    outcome = Outcome("njsscan")
    executable = _executable("SECDASH_REF_NJSSCAN", "njsscan")
    if executable is None:
        outcome.skipped = "not installed (set SECDASH_REF_NJSSCAN or put njsscan on PATH)"
        return outcome
    env = {
        **os.environ,
        "PATH": f"{Path(executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
        "SEMGREP_SEND_METRICS": "off",
        "SEMGREP_ENABLE_VERSION_CHECK": "0",
    }
    with tempfile.TemporaryDirectory(prefix="secdash-ref-") as work:
        output = Path(work) / "njsscan.json"
        started = time.perf_counter()
        _run([executable, "--json", "-o", str(output), "."], root, env)
        outcome.seconds = time.perf_counter() - started
        data = json.loads(output.read_text()) if output.is_file() else {}
    if data.get("errors"):
        outcome.skipped = f"errors: {str(data['errors'])[:200]}"
    for section in ("nodejs", "templates"):
        for rule, entry in (data.get(section) or {}).items():
            cwe = _cwe((entry.get("metadata") or {}).get("cwe"))
            for place in entry.get("files", []):
                line = (place.get("match_lines") or [0])[0]
                outcome.hits.append(Hit("njsscan", _relative(root, place["file_path"]), int(line), cwe, rule))
    return outcome


def bandit(root: Path) -> Outcome:
    outcome = Outcome("bandit")
    executable = _executable("SECDASH_REF_BANDIT", "bandit")
    if executable is None:
        outcome.skipped = "not installed (set SECDASH_REF_BANDIT or put bandit on PATH)"
        return outcome
    started = time.perf_counter()
    process = _run([executable, "-r", ".", "-f", "json", "-q"], root)
    outcome.seconds = time.perf_counter() - started
    try:
        data = json.loads(process.stdout or "{}")
    except json.JSONDecodeError:
        outcome.skipped = f"no JSON output: {process.stderr.strip()[-200:]}"
        return outcome
    for result in data.get("results", []):
        outcome.hits.append(
            Hit(
                "bandit",
                _relative(root, result["filename"]),
                int(result["line_number"]),
                _cwe(result.get("issue_cwe")),
                result["test_id"],
            )
        )
    return outcome


ESLINT_CONFIG = """const security = require({plugin});
module.exports = [
  {{ files: ['**/*.js', '**/*.mjs', '**/*.cjs'], languageOptions: {{ ecmaVersion: 'latest', sourceType: 'commonjs' }} }},
  security.configs.recommended,
];
"""


def eslint(root: Path) -> Outcome:
    outcome = Outcome("eslint-plugin-security")
    folder = os.environ.get("SECDASH_REF_ESLINT")
    node = _executable("SECDASH_REF_NODE", "node")
    cli = Path(folder or "/nonexistent") / "node_modules" / "eslint" / "bin" / "eslint.js"
    plugin = Path(folder or "/nonexistent") / "node_modules" / "eslint-plugin-security"
    if not folder or not cli.is_file() or not plugin.is_dir() or node is None:
        outcome.skipped = (
            "not installed (set SECDASH_REF_ESLINT to a folder where `npm i eslint "
            "eslint-plugin-security` ran, and have node on PATH or SECDASH_REF_NODE)"
        )
        return outcome
    with tempfile.TemporaryDirectory(prefix="secdash-ref-") as work:
        config = Path(work) / "eslint.config.js"
        config.write_text(ESLINT_CONFIG.format(plugin=json.dumps(str(plugin))))
        started = time.perf_counter()
        process = _run([node, str(cli), "-c", str(config), "--format", "json", "--no-warn-ignored", "."], root)
        outcome.seconds = time.perf_counter() - started
    try:
        data = json.loads(process.stdout or "[]")
    except json.JSONDecodeError:
        outcome.skipped = f"no JSON output: {process.stderr.strip()[-200:]}"
        return outcome
    for report in data:
        for message in report.get("messages", []):
            rule = message.get("ruleId")
            if rule is None:  # a file eslint could not parse
                continue
            outcome.hits.append(
                Hit(
                    "eslint-plugin-security",
                    _relative(root, report["filePath"]),
                    int(message.get("line", 0)),
                    ESLINT_CWE.get(rule),
                    rule,
                )
            )
    return outcome


REFERENCES: dict[str, Callable[[Path], Outcome]] = {"njsscan": njsscan, "bandit": bandit, "eslint-plugin-security": eslint}


# --- comparing ----------------------------------------------------------------------------------------------------


def _same(a: Hit, b: Hit) -> bool:
    return (
        a.file == b.file
        and abs(a.line - b.line) <= LINE_SLACK
        and (bool(a.family & b.family) or (a.cwe is not None and a.cwe == b.cwe))
    )


def union(outcomes: Sequence[Outcome]) -> list[list[Hit]]:
    """The reference findings with those of one place and weakness (any tool) grouped as one."""
    groups: list[list[Hit]] = []
    for hit in sorted((h for o in outcomes for h in o.hits), key=lambda h: (h.file, h.line, h.tool)):
        group = next((g for g in groups if _same(g[0], hit)), None)
        if group is None:
            groups.append([hit])
        else:
            group.append(hit)
    return groups


def _kind(hit: Hit) -> str:
    """The weakness family, named by its lowest CWE (CWE-943 NoSQL injection counts with CWE-89, ...)."""
    return f"CWE-{min(hit.family)}" if hit.family else "no CWE"


def _actionable(group: Sequence[Hit]) -> bool:
    return any(f"{h.tool}:{h.rule}" not in NOT_ACTIONABLE for h in group)


def _describe(group: Sequence[Hit]) -> str:
    first = group[0]
    rules = ", ".join(sorted({f"{h.tool}:{h.rule}" for h in group}))
    return f"{first.file}:{first.line} CWE-{first.cwe} ({rules})"


def compare(root: Path) -> None:
    print(f"\n=== {root.name} ({root})")
    collected = collect([root])
    lines = sum(t.lines for t in collected.targets)
    print(
        f"SecDash reads {len(collected.targets)} files, {lines} lines; {len(collected.skipped)} skipped "
        f"({', '.join(sorted({s.category for s in collected.skipped})) or 'none'})"
    )
    ours = {scan_type: secdash(root, scan_type) for scan_type in ("full", "quick")}
    references = [run(root) for run in REFERENCES.values()]
    print(f"{'tool':<26} {'findings':>8} {'kinds':>6} {'time':>8}")
    for outcome in [*ours.values(), *references]:
        if outcome.skipped and not outcome.hits:
            print(f"{outcome.tool:<26} skipped: {outcome.skipped}")
            continue
        kinds = {_kind(h) for h in outcome.hits}
        print(
            f"{outcome.tool:<26} {len(outcome.hits):>8} {len(kinds):>6} {outcome.seconds:>7.1f}s"
            + (f"  ({outcome.skipped})" if outcome.skipped else "")
        )
    groups = union([o for o in references if o.hits])
    ran = [o.tool for o in references if not (o.skipped and not o.hits)]
    if not ran:
        print("no reference tool ran: nothing to compare")
        return
    union_kinds = sorted({_kind(g[0]) for g in groups})
    print(f"reference union ({' + '.join(ran)}): {len(groups)} findings, {len(union_kinds)} kinds: {', '.join(union_kinds)}")
    judged = [g for g in groups if not _actionable(g)]
    if judged:
        print(f"  of which {len(judged)} only from rules judged not actionable: " + "; ".join(f"{_describe(g)}" for g in judged))
    for scan_type, outcome in ours.items():
        found = [g for g in groups if any(_same(r, h) for r in g for h in outcome.hits)]
        for name, wanted in (("union", groups), ("actionable union", [g for g in groups if _actionable(g)])):
            got = [g for g in wanted if g in found]
            kinds, all_kinds = {_kind(g[0]) for g in got}, {_kind(g[0]) for g in wanted}
            share = len(got) / len(wanted) if wanted else 1.0
            print(
                f"SecDash {scan_type} recall of the {name}: {len(got)}/{len(wanted)} = {share:.0%}; "
                f"kinds {len(kinds)}/{len(all_kinds)}"
            )
        for group in groups:
            if group not in found:
                print(f"  missed: {_describe(group)}" + ("" if _actionable(group) else " [judged not actionable]"))
    print("SecDash full only (no reference tool reports it):")
    only = [h for h in ours["full"].hits if not any(_same(h, r) for g in groups for r in g)]
    for hit in only:
        print(f"  {hit.file}:{hit.line} CWE-{hit.cwe} {hit.rule}")
    if not only:
        print("  none")


def run(paths: Sequence[str] = ()) -> None:
    folders = [Path(p) for p in paths]
    if not folders:
        print("scan_reference: give application folders: python -m bench scan_reference PATH [PATH...]; skipped")
        return
    for folder in folders:
        if not folder.is_dir():
            print(f"scan_reference: {folder} is not a folder; skipped")
            continue
        compare(folder.resolve())


if __name__ == "__main__":
    run(sys.argv[1:])
