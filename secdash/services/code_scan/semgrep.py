"""The semgrep OSS engine: one run over a batch of files with SecDash's rules and njsscan's.

The engine is semgrep's own binary (`semgrep-core`, started as `osemgrep`, its OCaml command line), installed from
the package index apart from the venv's libraries (`make install`: `pip install --no-deps --target .venv/engines`,
see requirements-engines.txt): semgrep's Python wrapper pins libraries that conflict with the server's, and the
binary needs none of them. Rule packs ship offline: SecDash's rules (rules/*.yaml, semgrep syntax) and njsscan's
semantic rules (the njsscan package, LGPL-3.0). semgrep's registry rules are not used (their licence does not allow
shipping them) and the engine is run with metrics and version checks off: a scan never uses the network.

Inline `<script>` blocks of HTML files are scanned as JavaScript: each is copied into a shadow file at the same
lines and columns (everything else blanked), so a finding points at the HTML file's own line.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

import yaml

from secdash.core import bounded
from secdash.core.config import get_settings
from secdash.core.files import make_private_dir
from secdash.services.code_scan import analysed
from secdash.services.code_scan.inline_scripts import shadow_script

RULES_DIR = Path(__file__).with_name("rules")
ENGINES_DIR = Path(sys.prefix) / "engines"
# njsscan's good/ folder matches the presence of good controls (helmet, csurf): those are not findings.
NJSSCAN_SKIPPED_FOLDERS = ("good",)
# Rules left out with the reason (data: `--all-rules` keeps them).
EXCLUDED_RULES = {
    "node_username": "a user name in code is not a secret",
    "node_logic_bypass": "flags any comparison of a user-controlled value; no vulnerability on its own",
    "node_timing_attack": "flags every comparison of a variable named like a secret, user input against user input too",
    "cookie_session_default": "the default cookie name is not a vulnerability",
    "cookie_session_no_domain": "a host-only cookie (no Domain) is the safer default, not a flaw",
    "cookie_session_no_path": "Path does not protect a cookie; its absence is not a flaw",
    "cookie_session_no_maxage": "a session cookie without Max-Age ends with the browser session; not a flaw",
    "dom_xss": "flags constant HTML too; SecDash's js:innerHTML and js:document.write cover these sinks",
    "express_lfr_warning": "flags any request value among render()'s data in apps without hbs (its message: 'if hbs "
    "templating is used'), req.user's server-side fields too; njsscan's express_lfr keeps hbs "
    "apps, SecDash's node:view-path and node:render-request-object the dangerous shapes",
    "node_insecure_random_generator": "flags every Math.random(), games and animations too; SecDash's "
    "js:weak-random-secret flags it where it makes a token, secret, session or id",
}
# njsscan rules left out because a SecDash rule flags the same weakness without their false matches (the SecDash
# rule named runs in quick scans too).
SUPERSEDED_RULES = {
    "node_xxe": "flags any libxmljs parse of request data; libxmljs expands entities only with noent: true, "
    "which SecDash's node:xxe checks",
    "node_nosqli_injection": "reads an SQL ORM's where-object (Sequelize) as a MongoDB filter; SecDash's "
    "node:nosql-injection follows request data into findOne and the other MongoDB calls",
    "regex_dos": "flags every regular expression tested against request data, anchored safe ones too; SecDash's "
    "node:redos checks the pattern for nested repetition, node:regex-injection patterns built from requests",
    "cookie_session_no_secure": "reads a Secure flag decided by an expression (secure: production) as missing; "
    "SecDash's node:session-cookie-insecure flags a cookie with no or a false secure flag",
}
JS_SUFFIXES = {".js", ".mjs", ".cjs", ".jsx", ".ts", ".tsx"}
HTML_SUFFIXES = {".html", ".htm"}
PY_SUFFIXES = {".py"}
SUFFIXES = JS_SUFFIXES | HTML_SUFFIXES | PY_SUFFIXES
TIMEOUT_PER_RULE = 5.0  # semgrep's own budget per file and rule; 3 timeouts on one file skip the file
MAX_MEMORY_MB = 1500
MAX_TARGET_BYTES = 2_000_000
# The '<' an HTML page may hold for its markup to be parsed (semgrep's HTML parser and the inline-script reader):
# both are quadratic in the '<' of a page they cannot parse ("<a" * 16000, one line or many: 7 s and 0.5 s; tags
# with unclosed quotes 36 s and 31 s). A page over the cap gets the other engines only and is reported as not
# analysed ("too large to check"); at the cap the worst page known costs them about 4 s.
MAX_HTML_TAGS = 5000
_SEVERITY = {
    "ERROR": "high",
    "WARNING": "medium",
    "INFO": "low",
    "CRITICAL": "high",
    "HIGH": "high",
    "MEDIUM": "medium",
    "LOW": "low",
}


_CONFIDENCE_RANK = {"high": 0, "medium": 1, "low": 2}


class EngineMissing(Exception):  # noqa: N818
    """semgrep-core or a rule pack is not installed."""


class RuleError(Exception):
    """A rule file does not load (a broken install or a bad edit of SecDash's rules)."""


@dataclass(frozen=True)
class Match:
    file: str  # as given (display path)
    line: int
    end_line: int
    rule: str
    severity: str
    confidence: str
    cwe: int | None
    message: str
    pack: str  # "secdash" | "njsscan"


@dataclass
class Run:
    matches: list[Match] = field(default_factory=list)
    failed: dict[str, str] = field(default_factory=dict)  # file -> why semgrep could not read it (all or part)


def semgrep_core() -> Path | None:
    """The engine binary: SECDASH_SEMGREP_CORE, the venv's engines folder, or semgrep-core on PATH."""
    given = os.environ.get("SECDASH_SEMGREP_CORE")
    for candidate in (given, ENGINES_DIR / "semgrep" / "bin" / "semgrep-core", shutil.which("semgrep-core")):
        if candidate and Path(candidate).is_file() and os.access(candidate, os.X_OK):
            return Path(candidate)
    return None


def njsscan_rules() -> Path | None:
    folder = ENGINES_DIR / "njsscan" / "rules" / "semantic_grep"
    if folder.is_dir():
        return folder
    try:  # installed as a library instead
        import njsscan  # type: ignore[import-not-found]  # noqa: PLC0415
    except ImportError:
        return None
    folder = Path(njsscan.__file__).parent / "rules" / "semantic_grep"
    return folder if folder.is_dir() else None


@functools.cache
def secret_by_position() -> frozenset[str]:
    """SecDash rules whose flagged literal is a secret because of where it is passed (a session's `secret:`, a
    signing key argument), whatever it reads like: the prose filter for credentials does not apply to them."""
    found = set()
    for source in RULES_DIR.glob("*.yaml"):
        for rule in (yaml.safe_load(source.read_text(encoding="utf-8")) or {}).get("rules", []):
            metadata = rule.get("metadata") or {}
            if metadata.get("secret-by-position") and metadata.get("secdash-rule"):
                found.add(str(metadata["secdash-rule"]))
    return frozenset(found)


def missing() -> list[str]:
    """What of the engine is not installed (empty when it can run)."""
    return ([] if semgrep_core() else ["semgrep-core (run `make install`)"]) + (
        [] if njsscan_rules() else ["njsscan rules (run `make install`)"]
    )


def configs(packs: Sequence[str], work: Path, suffixes: set[str] | None = None) -> list[Path]:
    """The rule files of the packs for files of these suffixes (all when None). SecDash's own are written out as
    JSON first: they share sources and sinks between rules through YAML anchors, which semgrep does not expand."""
    found = []
    web = suffixes is None or bool(suffixes & (JS_SUFFIXES | HTML_SUFFIXES))
    python = suffixes is None or bool(suffixes & PY_SUFFIXES)
    if "secdash" in packs:
        for source in sorted(RULES_DIR.glob("*.yaml")):
            if (source.stem == "python" and not python) or (source.stem != "python" and not web):
                continue
            expanded = work / f"secdash-{source.stem}.json"
            expanded.write_text(json.dumps(yaml.safe_load(source.read_text(encoding="utf-8"))), encoding="utf-8")
            found.append(expanded)
    if "njsscan" in packs and web:
        folder = njsscan_rules()
        if folder is None:
            raise EngineMissing("njsscan's rules are not installed (run `make install`)")
        found += sorted(path for path in folder.iterdir() if path.is_dir() and path.name not in NJSSCAN_SKIPPED_FOLDERS)
    return found


# --- running ----------------------------------------------------------------------------------------------------


def _cwe(metadata: dict) -> int | None:
    raw = metadata.get("cwe")
    if isinstance(raw, list):
        raw = raw[0] if raw else None
    if not raw:
        return None
    digits = "".join(ch for ch in str(raw).split(":")[0] if ch.isdigit())
    return int(digits) if digits else None


def _environment(home: str) -> dict[str, str]:
    """Nothing of the server's own environment beyond PATH; a private HOME; no metrics, no version check."""
    return {
        "PATH": os.environ.get("PATH", os.defpath),
        "HOME": home,
        "NO_COLOR": "1",
        "SEMGREP_SEND_METRICS": "off",
        "SEMGREP_ENABLE_VERSION_CHECK": "0",
        "XDG_CONFIG_HOME": home,
        "XDG_CACHE_HOME": home,
    }


# --- files analysed before (analysed.py), then the run -----------------------------------------------------


@functools.cache
def _rules_fingerprint() -> str:
    """The engine and every rule file: a change to any of them (an upgrade, an edited rule) forgets all results."""
    digest = hashlib.sha256()
    core = semgrep_core()
    if core is not None:
        stat = core.stat()
        digest.update(f"{core}:{stat.st_size}:{stat.st_mtime_ns}".encode())
    njsscan = njsscan_rules()
    sources = sorted(RULES_DIR.glob("*.yaml")) + (sorted(njsscan.rglob("*.yaml")) if njsscan else [])
    for source in sources:
        digest.update(source.name.encode() + b"\0" + source.read_bytes())
    return digest.hexdigest()


def run(
    files: Sequence[tuple[Path, str]],
    packs: Sequence[str],
    *,
    seconds: float,
    excluded: Sequence[str] = (*EXCLUDED_RULES, *SUPERSEDED_RULES),
) -> Run:
    """The matches of the rule packs in `files` ((path on disk, display path) pairs): files analysed before with
    the same bytes and rules from memory, the others in one semgrep run stopped after `seconds` (the files are then
    reported as failed). Raises EngineMissing when the engine is not installed."""
    core = semgrep_core()
    if core is None:
        raise EngineMissing("semgrep-core is not installed (run `make install`)")
    wanted = [(Path(path).absolute(), shown) for path, shown in files if Path(path).suffix.lower() in SUFFIXES]
    result = Run()
    rules = (",".join(sorted(packs)), ",".join(sorted(excluded)), _rules_fingerprint())
    keys = {shown: analysed.key(path, *rules) for path, shown in wanted}
    unseen = []
    for path, shown in wanted:
        known = analysed.recall(keys[shown])
        if known is None:
            unseen.append((path, shown))
        else:
            result.matches += [replace(match, file=shown) for match in known]
    if not unseen:
        return result
    ran = _analyse(core, unseen, packs, seconds=seconds, excluded=excluded)
    result.matches += ran.matches
    result.failed.update(ran.failed)
    for _path, shown in unseen:
        if shown not in ran.failed:
            analysed.remember(keys[shown], tuple(replace(m, file="") for m in ran.matches if m.file == shown))
    return result


def _analyse(
    core: Path, wanted: Sequence[tuple[Path, str]], packs: Sequence[str], *, seconds: float, excluded: Sequence[str]
) -> Run:
    """One semgrep run over `wanted`."""
    result = Run()
    with tempfile.TemporaryDirectory(prefix="semgrep-", dir=make_private_dir(get_settings().scratch_dir)) as work:
        rule_files = configs(packs, Path(work), {path.suffix.lower() for path, _shown in wanted})
        by_target: dict[str, str] = {}
        for index, (path, shown) in enumerate(wanted):
            target = str(path)
            if path.suffix.lower() in HTML_SUFFIXES:
                try:
                    page = path.read_text(encoding="utf-8", errors="replace")
                except OSError:
                    page = ""
                if page.count("<") > MAX_HTML_TAGS:
                    result.failed[shown] = (
                        f"not analysed by semgrep: more than {MAX_HTML_TAGS} '<' in the page (too large to check its "
                        "markup and inline scripts)"
                    )
                    continue
                script = shadow_script(page) if page else None
                if script is not None:
                    shadow = Path(work) / f"inline-{index}.js"
                    shadow.write_text(script, encoding="utf-8")
                    by_target[str(shadow)] = shown
            by_target[target] = shown
        if not rule_files or not by_target:
            return result
        command = [
            "osemgrep",
            "scan",
            "--experimental",
            "--json",
            "--metrics=off",
            "--disable-version-check",
            "--no-git-ignore",
            "--oss-only",
            "-j",
            "1",
            "--timeout",
            str(TIMEOUT_PER_RULE),
            "--max-memory",
            str(MAX_MEMORY_MB),
            "--max-target-bytes",
            str(MAX_TARGET_BYTES),
        ]
        for config in rule_files:
            command += ["--config", str(config)]
        for rule in excluded:
            command += ["--exclude-rule", rule]
        try:
            process = subprocess.run(  # noqa: S603 (the engine binary of our install, our own arguments)
                [*command, *by_target],
                executable=str(core),
                stdin=subprocess.DEVNULL,
                capture_output=True,
                env=_environment(work),
                timeout=seconds,
                preexec_fn=bounded.unlimited,
                check=False,
                cwd=work,
            )
        except subprocess.TimeoutExpired:
            result.failed.update(dict.fromkeys(by_target.values(), f"semgrep did not finish within {seconds:g} s"))
            return result
        try:
            output = json.loads(process.stdout or b"{}")
        except json.JSONDecodeError:
            output = {}
        config_errors = [
            e
            for e in output.get("errors", [])
            if str(e.get("path", "")) in map(str, rule_files) or "Rule" in str(e.get("type", ""))
        ]
        if "results" not in output or config_errors:
            if config_errors:
                raise RuleError(" ".join(str(config_errors[0].get("message", "")).split())[:300])
            why = process.stderr.decode("utf-8", errors="replace").strip().splitlines()[-1:] or ["no output"]
            result.failed.update(dict.fromkeys(by_target.values(), f"semgrep failed: {why[0][:200]}"))
            return result
        # One match per file, line and SecDash rule id: two semgrep rules may share an id (a data-flow rule and a
        # pattern rule for one weakness, one Fix Mode recipe); the more confident match is kept.
        seen: dict[tuple[str, int, str], int] = {}
        for item in output["results"]:
            matched = by_target.get(item.get("path", ""))
            if matched is None:
                continue
            extra = item.get("extra") or {}
            metadata = extra.get("metadata") or {}
            check = str(item.get("check_id", ""))
            secdash_rule = metadata.get("secdash-rule")
            rule = secdash_rule or f"njsscan:{check.rsplit('.', 1)[-1]}"
            line = int(item["start"]["line"])
            match = Match(
                file=matched,
                line=line,
                end_line=int(item.get("end", {}).get("line", line)),
                rule=rule,
                severity=_SEVERITY.get(str(extra.get("severity", "")).upper(), "medium"),
                confidence=str(metadata.get("confidence", "medium")).lower(),
                cwe=_cwe(metadata),
                message=" ".join(str(extra.get("message", "")).split())[:500],
                pack="secdash" if secdash_rule else "njsscan",
            )
            earlier = seen.get((matched, line, rule))
            if earlier is None:
                seen[(matched, line, rule)] = len(result.matches)
                result.matches.append(match)
            elif _CONFIDENCE_RANK.get(match.confidence, 1) < _CONFIDENCE_RANK.get(result.matches[earlier].confidence, 1):
                result.matches[earlier] = match
        for error in output.get("errors", []):
            failed_file = by_target.get(str(error.get("path", "")))
            if failed_file is None or failed_file in result.failed:
                continue
            kind = str(error.get("type", ""))
            kind = kind[0] if isinstance(error.get("type"), list) and kind else kind
            if (
                "Timeout" in kind
                or "OutOfMemory" in kind
                or "Syntax" in kind
                or "Lexical" in kind
                or error.get("level") == "error"
            ):
                message = " ".join(str(error.get("message", kind)).split())[:200]
                result.failed[failed_file] = f"semgrep could not fully analyse it ({message})"
    return result
