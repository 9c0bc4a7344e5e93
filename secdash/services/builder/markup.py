"""The HTML check of the Live Code Builder: every non-void element closed, local references (`href`, `src`, CSS
`url(...)`) resolving to project files, and the inline scripts and styles a page carries."""

from __future__ import annotations

import posixpath
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from html.parser import HTMLParser
from urllib.parse import unquote

from secdash.services.builder.check_types import (
    CSS_SUFFIXES,
    HTML_SUFFIXES,
    CheckFinding,
    InlineScript,
    SourceFile,
    shown,
)
from secdash.services.code_scan.semgrep import MAX_HTML_TAGS

VOID_ELEMENTS = {
    "area",
    "base",
    "br",
    "col",
    "embed",
    "hr",
    "img",
    "input",
    "link",
    "meta",
    "param",
    "source",
    "track",
    "wbr",
    "keygen",
    "command",
    "basefont",
    "frame",
}
# Elements whose end tag HTML lets a page leave out: closed by their parent's end tag, never "unclosed".
OPTIONAL_END = {
    "html",
    "head",
    "body",
    "p",
    "li",
    "dt",
    "dd",
    "tr",
    "td",
    "th",
    "thead",
    "tbody",
    "tfoot",
    "option",
    "optgroup",
    "rt",
    "rp",
    "colgroup",
    "caption",
}
# A start tag that implicitly closes an open element of these kinds right above it (`<li>a<li>b`).
_CLOSES = {
    "li": {"li"},
    "dt": {"dt", "dd"},
    "dd": {"dt", "dd"},
    "tr": {"tr", "td", "th"},
    "td": {"td", "th"},
    "th": {"td", "th"},
    "option": {"option"},
    "optgroup": {"optgroup", "option"},
    "thead": {"tbody", "tfoot"},
    "tbody": {"thead", "tbody", "tfoot", "tr", "td", "th"},
    "tfoot": {"thead", "tbody", "tr", "td", "th"},
    "rt": {"rt", "rp"},
    "rp": {"rt", "rp"},
    "body": {"head"},
}
_CLOSES_P = {
    "address",
    "article",
    "aside",
    "blockquote",
    "details",
    "dialog",
    "div",
    "dl",
    "fieldset",
    "figcaption",
    "figure",
    "footer",
    "form",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "header",
    "hgroup",
    "hr",
    "main",
    "menu",
    "nav",
    "ol",
    "p",
    "pre",
    "section",
    "table",
    "ul",
}
_REFERENCES = {
    "link": ("href",),
    "script": ("src",),
    "img": ("src", "srcset"),
    "a": ("href",),
    "source": ("src", "srcset"),
    "iframe": ("src",),
}
_JS_TYPES = {
    "",
    "module",
    "text/javascript",
    "application/javascript",
    "text/ecmascript",
    "application/ecmascript",
    "application/x-javascript",
    "text/jscript",
}
_SCHEME = re.compile(r"^([a-zA-Z][a-zA-Z0-9+.-]*):")
_NETWORK_SCHEMES = {"http", "https", "ws", "wss", "ftp"}
_CSS_URL = re.compile(r"""url\(\s*(?:"([^"]*)"|'([^']*)'|([^)"'\s]*))\s*\)|@import\s+(?:"([^"]*)"|'([^']*)')""", re.IGNORECASE)
_CSS_COMMENT = re.compile(r"/\*.*?\*/", re.DOTALL)


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
        for inner, opened in self.stack[open_at + 1 :]:
            if inner not in OPTIONAL_END:
                self.problems.append((opened, f"<{inner}> opened on line {opened} is not closed before </{tag}> on line {line}"))
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
                self.problems.append((self.getpos()[0], f"unfinished markup at the end: {shown(leftover[:40])}"))
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
        return [
            CheckFinding(
                "links", "warning", file, line, f"{verb} {shown(reference)} from the network; the preview has no network"
            )
        ]
    if scheme:
        return []  # data:, mailto:, javascript:, tel: ... name no file
    if reference.startswith("/"):
        return [
            CheckFinding(
                "links",
                "warning",
                file,
                line,
                f"references {shown(reference)} from the site root; it would not resolve in the preview",
            )
        ]
    found = _resolves(file, reference, project)
    if found:
        return []
    outside = " (outside the project)" if found is None else ""
    return [CheckFinding("links", "error", file, line, f"references missing file {shown(reference)}{outside}")]


def check_markup(files: Sequence[SourceFile], project: set[str]) -> tuple[list[CheckFinding], list[InlineScript], Counter]:
    findings: list[CheckFinding] = []
    scripts: list[InlineScript] = []
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
        if file.text.count("<") > MAX_HTML_TAGS:  # html.parser is quadratic in the '<' of a page it cannot parse
            message = f"not checked: more than {MAX_HTML_TAGS} '<' in the page (too large to check its markup)"
            findings.append(CheckFinding("html", "warning", file.relative, None, message))
            continue
        markup = _Markup()
        markup.finish(file.text)
        findings += [CheckFinding("html", "error", file.relative, line, message) for line, message in markup.problems]
        for line, tag, reference in markup.references:
            findings += _reference_findings(file.relative, line, tag, reference, project)
        for first_line, css in markup.styles:
            for line, reference in _css_references(css, first_line):
                findings += _reference_findings(file.relative, line, "style", reference, project)
        scripts += [
            InlineScript(file.relative, line, source, module) for line, source, module in markup.scripts if source.strip()
        ]
    return findings, scripts, counts


# --- JavaScript -------------------------------------------------------------------------------------------------
