"""The Live Code Builder's testing stage: real checks of a project's files once they are on disk.

HTML must parse with every non-void element closed; local `href`/`src`/`url(...)` references must resolve to
files of the project (a root-relative or network reference is a warning: the preview serves the project alone,
without network); JavaScript (files and inline `<script>` blocks) must pass `node --check`, which parses and never
runs; Python must compile (`compile` does not execute); and SecDash's own code scan runs over every file.

Only the listed project paths are read, each only if it stays inside the root once symlinks are resolved, and
only up to MAX_CHECK_BYTES. A reference is resolved as text against the project's paths, so one that leaves the
project (`../secret.js`) is reported missing without its target ever being opened. Messages name files by their
project path, never by where the project lives on the server.
"""

from __future__ import annotations

import asyncio
import os
import posixpath
import re
import shutil
import subprocess
import tempfile
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from html.parser import HTMLParser
from pathlib import Path, PurePosixPath
from urllib.parse import unquote

from secdash.ai.files import safe_path
from secdash.services.code_scan import ScanTarget, scan_file
from secdash.services.code_scan.engine import SKIP_DIRS

CHECKS = ("html", "links", "javascript", "python", "scan")
MAX_CHECK_BYTES = 512 * 1024
MAX_FINDINGS = 200
NODE_TIMEOUT = 10.0  # seconds per `node --check`
NODE_PARALLEL = 2
MAX_MESSAGE_CHARS = 300

HTML_SUFFIXES = {".html", ".htm"}
CSS_SUFFIXES = {".css"}
JS_SUFFIXES = {".js", ".mjs", ".cjs"}
PY_SUFFIXES = {".py"}

VOID_ELEMENTS = {
    "area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "param", "source", "track", "wbr",
    "keygen", "command", "basefont", "frame",
}
# Elements whose end tag HTML lets a page leave out: closed by their parent's end tag, never "unclosed".
OPTIONAL_END = {
    "html", "head", "body", "p", "li", "dt", "dd", "tr", "td", "th", "thead", "tbody", "tfoot", "option",
    "optgroup", "rt", "rp", "colgroup", "caption",
}
# A start tag that implicitly closes an open element of these kinds right above it (`<li>a<li>b`).
_CLOSES = {
    "li": {"li"}, "dt": {"dt", "dd"}, "dd": {"dt", "dd"}, "tr": {"tr", "td", "th"}, "td": {"td", "th"},
    "th": {"td", "th"}, "option": {"option"}, "optgroup": {"optgroup", "option"}, "thead": {"tbody", "tfoot"},
    "tbody": {"thead", "tbody", "tfoot", "tr", "td", "th"}, "tfoot": {"thead", "tbody", "tr", "td", "th"},
    "rt": {"rt", "rp"}, "rp": {"rt", "rp"}, "body": {"head"},
}
_CLOSES_P = {
    "address", "article", "aside", "blockquote", "details", "dialog", "div", "dl", "fieldset", "figcaption",
    "figure", "footer", "form", "h1", "h2", "h3", "h4", "h5", "h6", "header", "hgroup", "hr", "main", "menu",
    "nav", "ol", "p", "pre", "section", "table", "ul",
}
_REFERENCES = {
    "link": ("href",), "script": ("src",), "img": ("src", "srcset"), "a": ("href",),
    "source": ("src", "srcset"), "iframe": ("src",),
}
_JS_TYPES = {"", "module", "text/javascript", "application/javascript", "text/ecmascript", "application/ecmascript",
             "application/x-javascript", "text/jscript"}
_SCHEME = re.compile(r"^([a-zA-Z][a-zA-Z0-9+.-]*):")
_NETWORK_SCHEMES = {"http", "https", "ws", "wss", "ftp"}
_CSS_URL = re.compile(r"""url\(\s*(?:"([^"]*)"|'([^']*)'|([^)"'\s]*))\s*\)|@import\s+(?:"([^"]*)"|'([^']*)')""",
                      re.IGNORECASE)
_CSS_COMMENT = re.compile(r"/\*.*?\*/", re.DOTALL)
_NODE_LOCATION = re.compile(r"^(.*):(\d+)\s*$", re.MULTILINE)
_NODE_ERROR = re.compile(r"^((?:\w+Error|Error)\b.*)$", re.MULTILINE)


@dataclass(frozen=True)
class CheckFinding:
    check: str  # "html" | "links" | "javascript" | "python" | "scan"
    level: str  # "error" | "warning"
    file: str  # project-relative path ("" for the project as a whole)
    line: int | None
    message: str  # one line, safe to show

    def __str__(self) -> str:
        """The log line: `index.html:12 references missing file app.js`."""
        where = f"{self.file}:{self.line}" if self.file and self.line else self.file
        return f"{where} {self.message}" if where else self.message


@dataclass(frozen=True)
class CheckReport:
    findings: tuple[CheckFinding, ...]
    counts: dict[str, int] = field(default_factory=dict)  # files checked per check

    @property
    def errors(self) -> int:
        return sum(1 for finding in self.findings if finding.level == "error")

    @property
    def warnings(self) -> int:
        return sum(1 for finding in self.findings if finding.level == "warning")

    @property
    def ok(self) -> bool:
        """No errors (warnings allowed)."""
        return self.errors == 0


@dataclass(frozen=True)
class _File:
    relative: str
    path: Path  # resolved, inside the root
    data: bytes

    @property
    def suffix(self) -> str:
        return PurePosixPath(self.relative).suffix.lower()

    @property
    def text(self) -> str:
        return self.data.decode("utf-8", errors="replace")


@dataclass(frozen=True)
class _InlineScript:
    file: str
    line: int  # the HTML line the script's first line is on
    source: str
    module: bool


def _check_of(relative: str) -> str:
    suffix = PurePosixPath(relative).suffix.lower()
    if suffix in HTML_SUFFIXES:
        return "html"
    if suffix in JS_SUFFIXES:
        return "javascript"
    return "python" if suffix in PY_SUFFIXES else "scan"


# --- reading the project ---------------------------------------------------------------------------------------


def _load(root: Path, paths: Sequence[str], *, scan: bool) -> tuple[list[_File], list[CheckFinding]]:
    """The files the checks read; a finding for each listed path that cannot or may not be read."""
    files, findings = [], []
    wanted = HTML_SUFFIXES | CSS_SUFFIXES | JS_SUFFIXES | PY_SUFFIXES
    for relative in dict.fromkeys(paths):
        check = _check_of(relative)
        if safe_path(relative) != relative:
            findings.append(CheckFinding(check, "error", "", None, f"not a safe project path: {_shown(relative)}"))
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
                findings.append(CheckFinding(check, "warning", relative, None,
                                             f"is larger than {MAX_CHECK_BYTES // 1024} KB; not checked"))
                continue
            files.append(_File(relative, real, real.read_bytes()))
        except OSError as exc:
            findings.append(CheckFinding(check, "error", relative, None, f"cannot be read ({exc.strerror or 'error'})"))
    return files, findings


# --- HTML and references ---------------------------------------------------------------------------------------


class _Markup(HTMLParser):
    """One HTML document: its open-element stack, problems, references and inline scripts."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.stack: list[tuple[str, int]] = []
        self.problems: list[tuple[int, str]] = []
        self.references: list[tuple[int, str, str]] = []  # (line, tag, reference)
        self.scripts: list[tuple[int, str, bool]] = []  # (line, source, module)
        self.styles: list[tuple[int, str]] = []  # (line, css)
        self._script: tuple[int | None, bool, list[str]] | None = None
        self._style: tuple[int | None, list[str]] | None = None

    def _attributes(self, tag: str, attrs: list[tuple[str, str | None]], line: int) -> None:
        values = {name: value or "" for name, value in attrs}
        for name in _REFERENCES.get(tag, ()):
            value = values.get(name, "").strip()
            if not value:
                continue
            if name == "srcset":
                for candidate in value.split(","):
                    if candidate.strip():
                        self.references.append((line, tag, candidate.split()[0]))
            else:
                self.references.append((line, tag, value))
        if values.get("style"):
            self.styles.append((line, values["style"]))

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        line = self.getpos()[0]
        self._attributes(tag, attrs, line)
        if tag in VOID_ELEMENTS:
            return
        closes = _CLOSES.get(tag, set()) | ({"p"} if tag in _CLOSES_P else set())
        while self.stack and self.stack[-1][0] in closes:
            self.stack.pop()
        self.stack.append((tag, line))
        values = {name: (value or "").strip().lower() for name, value in attrs}
        if tag == "script" and "src" not in values and values.get("type", "") in _JS_TYPES:
            self._script = (None, values.get("type") == "module", [])
        elif tag == "style":
            self._style = (None, [])

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self._attributes(tag, attrs, self.getpos()[0])

    def handle_endtag(self, tag: str) -> None:
        line = self.getpos()[0]
        if tag == "script" and self._script is not None:
            start, module, chunks = self._script
            self.scripts.append((start or line, "".join(chunks), module))
            self._script = None
        if tag == "style" and self._style is not None:
            start, chunks = self._style
            self.styles.append((start or line, "".join(chunks)))
            self._style = None
        if tag in VOID_ELEMENTS:
            return
        open_at = next((i for i in range(len(self.stack) - 1, -1, -1) if self.stack[i][0] == tag), None)
        if open_at is None:
            if tag not in {"html", "head", "body"}:
                self.problems.append((line, f"</{tag}> closes nothing: no <{tag}> is open"))
            return
        for inner, opened in self.stack[open_at + 1:]:
            if inner not in OPTIONAL_END:
                self.problems.append((opened, f"<{inner}> opened on line {opened} is not closed before </{tag}> "
                                              f"on line {line}"))
        del self.stack[open_at:]

    def handle_data(self, data: str) -> None:
        if self._script is not None:
            start, module, chunks = self._script
            self._script = (start or self.getpos()[0], module, [*chunks, data])
        elif self._style is not None:
            start, chunks = self._style
            self._style = (start or self.getpos()[0], [*chunks, data])
        elif data.startswith("<!--"):
            self.problems.append((self.getpos()[0], "comment <!-- is never closed"))

    def finish(self, text: str) -> None:
        try:
            self.feed(text)
            leftover = self.rawdata
            if leftover.startswith("<") and getattr(self, "cdata_elem", None) is None:
                self.problems.append((self.getpos()[0], f"unfinished markup at the end: {_shown(leftover[:40])}"))
            self.close()
        except Exception as exc:  # html.parser raises assorted errors on broken markup
            self.problems.append((self.getpos()[0], f"does not parse: {type(exc).__name__}: {exc}"))
            return
        for tag, opened in self.stack:
            if tag not in OPTIONAL_END:
                self.problems.append((opened, f"<{tag}> opened on line {opened} is never closed"))


def _css_references(css: str, first_line: int) -> Iterable[tuple[int, str]]:
    css = _CSS_COMMENT.sub(lambda match: "\n" * match.group().count("\n"), css)
    for match in _CSS_URL.finditer(css):
        reference = next((group for group in match.groups() if group is not None), "").strip()
        if reference:
            yield first_line + css.count("\n", 0, match.start()), reference


def _resolves(base: str, reference: str, project: set[str]) -> bool | None:
    """Whether a local reference names a project file (None: it leaves the project)."""
    target = unquote(reference.split("#", 1)[0].split("?", 1)[0])
    if not target:
        return True  # the page itself
    joined = posixpath.normpath(posixpath.join(posixpath.dirname(base), target))
    if joined == ".." or joined.startswith("../"):
        return None
    if joined in project:
        return True
    directory = "" if joined == "." else joined + "/"
    return (target.endswith("/") or joined == ".") and directory + "index.html" in project


def _reference_findings(file: str, line: int, tag: str, reference: str, project: set[str]) -> list[CheckFinding]:
    if reference.startswith("#") or any(mark in reference for mark in ("{{", "${", "<%")):
        return []
    scheme = _SCHEME.match(reference)
    if reference.startswith("//") or (scheme and scheme.group(1).lower() in _NETWORK_SCHEMES):
        verb = "links to" if tag == "a" else "loads"
        return [CheckFinding("links", "warning", file, line,
                             f"{verb} {_shown(reference)} from the network; the preview has no network")]
    if scheme:
        return []  # data:, mailto:, javascript:, tel: ... name no file
    if reference.startswith("/"):
        return [CheckFinding("links", "warning", file, line,
                             f"references {_shown(reference)} from the site root; it would not resolve in the preview")]
    found = _resolves(file, reference, project)
    if found:
        return []
    outside = " (outside the project)" if found is None else ""
    return [CheckFinding("links", "error", file, line, f"references missing file {_shown(reference)}{outside}")]


def _check_markup(files: Sequence[_File], project: set[str]) -> tuple[list[CheckFinding], list[_InlineScript], Counter]:
    findings: list[CheckFinding] = []
    scripts: list[_InlineScript] = []
    counts: Counter = Counter()
    for file in files:
        if file.suffix in CSS_SUFFIXES:
            counts["links"] += 1
            for line, reference in _css_references(file.text, 1):
                findings += _reference_findings(file.relative, line, "style", reference, project)
        if file.suffix not in HTML_SUFFIXES:
            continue
        counts["html"] += 1
        counts["links"] += 1
        markup = _Markup()
        markup.finish(file.text)
        findings += [CheckFinding("html", "error", file.relative, line, message) for line, message in markup.problems]
        for line, tag, reference in markup.references:
            findings += _reference_findings(file.relative, line, tag, reference, project)
        for first_line, css in markup.styles:
            for line, reference in _css_references(css, first_line):
                findings += _reference_findings(file.relative, line, "style", reference, project)
        scripts += [_InlineScript(file.relative, line, source, module) for line, source, module in markup.scripts
                    if source.strip()]
    return findings, scripts, counts


# --- JavaScript -------------------------------------------------------------------------------------------------


def _node_environment() -> dict[str, str]:
    """No NODE_OPTIONS (it could preload code), nothing of the server's own environment beyond PATH."""
    return {"PATH": os.environ.get("PATH", os.defpath)}


async def _node_check(node: str, path: Path, file: str, first_line: int, gate: asyncio.Semaphore,
                      what: str) -> list[CheckFinding]:
    async with gate:
        process = await asyncio.create_subprocess_exec(
            node, "--check", str(path), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE, env=_node_environment(),
        )
        try:
            _, stderr = await asyncio.wait_for(process.communicate(), NODE_TIMEOUT)
        except TimeoutError:
            return [CheckFinding("javascript", "warning", file, first_line if what != "file" else None,
                                 f"syntax check of {what} did not finish within {NODE_TIMEOUT:g} s")]
        finally:
            if process.returncode is None:
                process.kill()
                await process.wait()
    if process.returncode == 0:
        return []
    text = stderr.decode("utf-8", errors="replace")
    location = _NODE_LOCATION.search(text)
    line = first_line + int(location.group(2)) - 1 if location else None
    error = _NODE_ERROR.search(text)
    message = error.group(1) if error else f"node --check failed (exit {process.returncode})"
    if what != "file":
        message = f"{message} (in {what})"
    return [CheckFinding("javascript", "error", file, line, message.replace(str(path), file))]


def _write_inline(directory: Path, scripts: Sequence[_InlineScript]) -> list[Path]:
    written = []
    for number, script in enumerate(scripts, start=1):
        path = directory / f"inline-{number}{'.mjs' if script.module else '.js'}"
        path.write_text(script.source, encoding="utf-8")
        written.append(path)
    return written


async def _check_javascript(files: Sequence[_File], scripts: Sequence[_InlineScript]) -> tuple[list[CheckFinding], int]:
    sources = [file for file in files if file.suffix in JS_SUFFIXES]
    if not sources and not scripts:
        return [], 0
    node = shutil.which("node")
    if node is None:
        return [CheckFinding("javascript", "warning", "", None,
                             "Node.js is not installed on the server; JavaScript was not syntax-checked")], 0
    gate = asyncio.Semaphore(NODE_PARALLEL)
    directory = Path(await asyncio.to_thread(tempfile.mkdtemp, prefix="secdash-inline-"))
    try:
        inline = await asyncio.to_thread(_write_inline, directory, scripts)
        runs = [_node_check(node, file.path, file.relative, 1, gate, "file") for file in sources]
        runs += [_node_check(node, path, script.file, script.line, gate, "an inline <script>")
                 for path, script in zip(inline, scripts, strict=True)]
        results = await asyncio.gather(*runs)
    finally:
        await asyncio.to_thread(shutil.rmtree, directory, True)
    return [finding for found in results for finding in found], len(runs)


# --- Python and the code scan -----------------------------------------------------------------------------------


def _check_python(files: Sequence[_File]) -> tuple[list[CheckFinding], int]:
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


def _scan(files: Sequence[_File]) -> tuple[list[CheckFinding], int]:
    findings, scanned = [], 0
    for file in files:
        if b"\0" in file.data[:8192] or any(part in SKIP_DIRS for part in PurePosixPath(file.relative).parts[:-1]):
            continue
        scanned += 1
        target = ScanTarget(path=file.path, display=file.relative, lines=file.data.count(b"\n") + 1)
        for found in scan_file(target, "full"):
            rule = found.rule.removeprefix("bandit:")
            level = "error" if found.severity == "high" else "warning"
            findings.append(CheckFinding("scan", level, file.relative, found.line,
                                         f"{rule} {found.message} ({found.severity})"))
    return findings, scanned


# --- the report -------------------------------------------------------------------------------------------------


def _shown(text: str, limit: int = 120) -> str:
    text = "".join(char if char.isprintable() else " " for char in text)
    return text if len(text) <= limit else text[: limit - 3] + "..."


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
    summary = CheckFinding(dropped[0].check, "error" if errors else "warning", "", None,
                           f"... and {len(dropped)} more ({errors} errors)")
    return (*sorted(kept, key=place), summary)


async def run_checks(root: Path, paths: Sequence[str], *, scan: bool = True) -> CheckReport:
    """Check the project whose files (`paths`, relative) are on disk under `root`; nothing in it is executed."""
    given, root = await asyncio.to_thread(lambda: (os.path.abspath(root), Path(root).resolve()))
    files, findings = await asyncio.to_thread(_load, root, paths, scan=scan)
    project = set(paths)
    markup_findings, scripts, counts = await asyncio.to_thread(_check_markup, files, project)
    findings += markup_findings
    stages = [_check_javascript(files, scripts), asyncio.to_thread(_check_python, files)]
    if scan:
        stages.append(asyncio.to_thread(_scan, files))
    for check, (found, checked) in zip(("javascript", "python", "scan"), await asyncio.gather(*stages), strict=False):
        findings += found
        counts[check] += checked
    hidden = sorted({given, str(root)}, key=len, reverse=True)
    findings = [replace(finding, message=_clean(finding.message, hidden)) for finding in findings]
    order = {path: index for index, path in enumerate(dict.fromkeys(paths))}
    return CheckReport(findings=_bounded(findings, order), counts={check: counts[check] for check in CHECKS})
