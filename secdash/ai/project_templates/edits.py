"""Continue without a model: the few edits the offline engine can make to an existing project, read from the
request's words and applied to its files. Deterministic; only the files that change come back.

What it understands (anything else needs a model):
- the title: "call it X", "rename to X", "title X", "change the heading to X" -> <title>, the first <h1> of the
  main page, the old name wherever it is page text, the README's first heading;
- the colours: "dark", "light", or an accent colour ("green", "purple") -> the theme variables of the CSS
  (`--bg`, `--accent`, ...; secdash/ai/project_templates/theme.py), or an override block for other CSS;
- the footer: "add a footer saying X" -> the footer's text on every page (a footer is added where none is);
- a section: "add a section called X" -> a new <section> with that heading at the end of the main page's <main>;
- the button: "change the button to X" -> the text of the main page's first <button>.
Texts taken from the request are cleaned (brief.clean) and HTML-escaped: they never become markup.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass, field

from secdash.ai.project_templates.brief import clean, title_case
from secdash.ai.project_templates.theme import ACCENTS, MODES, theme_words

CAPABILITIES = (
    'Without a model, the offline template engine can change: the title ("call it Bean There"), the colour theme '
    '("dark", "light", or an accent colour such as green or purple), the footer ("add a footer saying ..."), '
    'a new section ("add a section called ...") and the button text ("change the button to ..."). For anything '
    "else, connect a model: set SECDASH_LLM_BASE_URL."
)
_VERBS = r"(?:make|change|add|rename|call|set|use|give|put|switch|turn|update|insert|include|title|name)"
_END = re.compile(rf"\s*(?:[;\n]|\.(?:\s|$)|,?\s+and\s+(?:then\s+)?{_VERBS}\b|,\s*(?:then\s+)?{_VERBS}\b|$)", re.I)
_QUOTE = re.compile(r"[\"“'‘](?P<v>[^\"”'’\n]{1,120})[\"”'’]")
_NOT_A_TEXT = r"(?!the\b|a\b|an\b|top\b|bottom\b|left\b|right\b)"  # "move the button to the top" is no label
_BUTTON = re.compile(
    r"\bbutton(?:'s)?(?:\s+(?:text|label|caption))?\s*(?:to\s+say|to\s+read|should\s+say|should\s+read"
    rf"|to\s+{_NOT_A_TEXT}|says?|saying|reads?|reading|as|:|=)\s*",
    re.I,
)
_FOOTER = re.compile(
    r"\bfooter\s*(?:with\s+the\s+text|with\s+text|that\s+says|which\s+says|that\s+reads|saying|reading"
    rf"|to\s+say|to\s+read|to\s+{_NOT_A_TEXT}|with|says|:|=)\s*|\bfooter\s+(?=[\"“'‘])",
    re.I,
)
_SECTION = re.compile(
    r"\b(?:add|insert|include|append|put|create)\s+(?:an?\s+|the\s+|one\s+|another\s+)?"
    r"(?:new\s+|extra\s+|second\s+)?(?:section|heading|part|block)\s*(?:called|titled|named|about|on"
    r"|for|with\s+the\s+(?:title|heading)|with\s+(?:title|heading)|saying|:|=)?\s*",
    re.I,
)
_TITLE = (
    re.compile(r"\b(?:call|name|title)\s+it\s+", re.I),
    re.compile(r"\brename\s+(?:it\s+|the\s+(?:project|page|site|app|title|heading)\s+)?(?:to|as)\s+", re.I),
    re.compile(
        r"\b(?:change|set|update|make)\s+(?:the\s+)?(?:page\s+|site\s+|project\s+|main\s+|app\s+)?"
        r"(?:title|name|heading|headline)\s+(?:to|into|as)\s+",
        re.I,
    ),
    re.compile(r"(?:^\s*|[,;.]\s*|\band\s+)(?:new\s+)?(?:title|heading|headline)\s*(?::|=)?\s+", re.I),
    re.compile(r"\b(?:title|heading|headline)\s*(?:should\s+be|:|=)\s*", re.I),
)
_THEME_START = "/* Theme set by the offline template engine */"
_THEME_END = "/* end of theme */"


@dataclass
class Request:
    """The edits one request asks for (None: not asked)."""

    title: str | None = None
    mode: str | None = None
    accent: str | None = None
    footer: str | None = None
    section: str | None = None
    button: str | None = None
    rest: str = ""  # the request without the parts read as values


def _value(text: str, start: int) -> tuple[str, int]:
    """The value that starts at `start` (quoted, or up to the end of the clause) and where it ends."""
    quoted = _QUOTE.match(text, start)
    if quoted:
        return quoted.group("v"), quoted.end()
    end = _END.search(text, start)
    stop = end.start() if end else len(text)
    return text[start:stop], stop


def _take(text: str, pattern: re.Pattern[str], limit: int) -> tuple[str | None, str]:
    """The cleaned value after the first match of `pattern`, and the text with that clause blanked out."""
    for match in pattern.finditer(text):
        raw, end = _value(text, match.end())
        value = clean(raw, limit)
        if value:
            return value, text[: match.start()] + " " * (end - match.start()) + text[end:]
    return None, text


def read_request(prompt: str) -> Request:
    text = (prompt or "")[:4000]
    button, text = _take(text, _BUTTON, 40)
    footer, text = _take(text, _FOOTER, 120)
    section, text = _take(text, _SECTION, 80)
    title = None
    for pattern in _TITLE:
        title, text = _take(text, pattern, 60)
        if title:
            break
    mode, accent = theme_words(text)
    return Request(
        title=title,
        mode=mode,
        accent=accent,
        footer=footer,
        button=button,
        rest=text,
        section=title_case(section) if section and section == section.lower() else section,
    )


# --- applying edits -------------------------------------------------------------------------------------------


@dataclass
class Project:
    """The files being edited, and what was done or could not be."""

    files: dict[str, str]
    done: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    def paths(self, *suffixes: str) -> list[str]:
        return sorted(path for path in self.files if path.lower().endswith(suffixes))

    @property
    def main_page(self) -> str | None:
        pages = self.paths(".html", ".htm")
        return "index.html" if "index.html" in self.files else (pages[0] if pages else None)


def _text_replace(markup: str, old: str, new: str) -> str:
    """`old` -> `new` in the page's text only (not in tags, scripts or styles), as a whole word or phrase."""
    pattern = re.compile(r"(?<!\w)" + re.escape(old) + r"(?!\w)")
    out, skip = [], None
    for piece in re.split(r"(<[^>]*>)", markup):
        if piece.startswith("<"):
            tag = re.match(r"</?\s*([a-zA-Z0-9]+)", piece)
            name = tag.group(1).lower() if tag else ""
            if name in ("script", "style"):
                skip = None if piece.startswith("</") else name
            out.append(piece)
        else:
            out.append(piece if skip else pattern.sub(lambda _: new, piece))
    return "".join(out)


def _set_title(project: Project, title: str) -> None:
    new = html.escape(title, quote=True)
    main = project.main_page
    old_title = None
    if main:
        found = re.search(r"<title[^>]*>(.*?)</title>", project.files[main], re.S | re.I)
        old_title = html.unescape(found.group(1)).strip() if found else None
    for path in project.paths(".html", ".htm"):
        text = project.files[path]
        if old_title:
            text = _text_replace(text, html.escape(old_title, quote=True), new)
        text = re.sub(r"(<title[^>]*>).*?(</title>)", lambda m: m.group(1) + new + m.group(2), text, count=1, flags=re.S | re.I)
        if path == main:
            text = re.sub(r"(<h1\b[^>]*>).*?(</h1>)", lambda m: m.group(1) + new + m.group(2), text, count=1, flags=re.S | re.I)
        project.files[path] = text
    for path in project.paths("readme.md"):
        project.files[path] = re.sub(r"\A#[ \t]+[^\n]*", lambda _: "# " + title, project.files[path], count=1)
    if main is None and not project.paths("readme.md"):
        project.problems.append("no page or README to rename")


def _set_vars(css: str, values: dict[str, str]) -> str:
    for name, value in values.items():

        def keep_name(m: re.Match[str], v: str = value) -> str:
            return m.group(1) + v

        css = re.sub(rf"(--{re.escape(name)}\s*:\s*)[^;}}]+", keep_name, css)
    return css


def _override_block(mode: str | None, accent: str | None, old: str) -> str:
    """A theme block for CSS without the theme variables (merging what an earlier block set)."""
    previous = dict(re.findall(r"/\* (mode|accent): (\w+) \*/", old))
    mode, accent = mode or previous.get("mode"), accent or previous.get("accent")
    lines = [_THEME_START]
    if mode:
        colours = MODES[mode]
        lines += [f"/* mode: {mode} */", f"body {{ background-color: {colours['bg']}; color: {colours['text']}; }}"]
    if accent:
        value = ACCENTS[accent]
        lines += [
            f"/* accent: {accent} */",
            f"a, h1, h2 {{ color: {value}; }}",
            f"button, .button {{ background-color: {value}; border-color: {value}; color: #ffffff; }}",
        ]
    return "\n".join([*lines, _THEME_END]) + "\n"


_STYLE_BLOCK = re.compile(r"(<style\b[^>]*>)(.*?)(</style>)", re.S | re.I)
_THEME_VARS = re.compile(r"--(?:bg|accent)\s*:")


def _themed_css(css: str, values: dict[str, str], mode: str | None) -> str:
    css = _set_vars(css, values)
    if mode:
        css = re.sub(r"(color-scheme\s*:\s*)(?:light|dark)", lambda m: m.group(1) + mode, css)
    return css


def _set_theme(project: Project, mode: str | None, accent: str | None) -> None:
    values = {**(MODES[mode] if mode else {}), **({"accent": ACCENTS[accent]} if accent else {})}
    themed = [path for path in project.paths(".css") if _THEME_VARS.search(project.files[path])]
    for path in themed:
        project.files[path] = _themed_css(project.files[path], values, mode)
    for path in project.paths(".html", ".htm"):  # a page with its stylesheet inline (an HTML artifact)
        page = project.files[path]
        if any(_THEME_VARS.search(match.group(2)) for match in _STYLE_BLOCK.finditer(page)):
            project.files[path] = _STYLE_BLOCK.sub(
                lambda m: (
                    m.group(1)
                    + (_themed_css(m.group(2), values, mode) if _THEME_VARS.search(m.group(2)) else m.group(2))
                    + m.group(3)
                ),
                page,
            )
            themed.append(path)
    if themed:
        return
    block = re.compile(re.escape(_THEME_START) + r".*?" + re.escape(_THEME_END) + r"\n?", re.S)
    sheets = project.paths(".css")
    if sheets:
        css = project.files[sheets[0]]
        old = block.search(css)
        css = block.sub("", css).rstrip("\n")
        project.files[sheets[0]] = (css + "\n\n" if css else "") + _override_block(mode, accent, old.group(0) if old else "")
        return
    main = project.main_page
    if main is None or "</head>" not in project.files[main].lower():
        project.problems.append("no stylesheet or page <head> to set the colours in")
        return
    text = project.files[main]
    old = block.search(text)
    style = "<style>\n" + _override_block(mode, accent, old.group(0) if old else "") + "</style>\n"
    text = re.sub(r"<style>\s*" + block.pattern + r"\s*</style>\n?", "", text, flags=re.S)
    project.files[main] = re.sub(r"(?i)([ \t]*)</head>", lambda m: m.group(1) + "  " + style + m.group(0), text, count=1)


def _set_footer(project: Project, footer: str) -> None:
    text_html = html.escape(footer, quote=True)
    pages = project.paths(".html", ".htm")
    if not pages:
        project.problems.append("no page to put a footer on")
    for path in pages:
        text = project.files[path]
        found = re.search(r"(<footer\b[^>]*>)(.*?)(</footer>)", text, re.S | re.I)
        if found:
            inner = found.group(2)
            if re.search(r"<p\b[^>]*>.*?</p>", inner, re.S | re.I):
                inner = re.sub(
                    r"(<p\b[^>]*>).*?(</p>)", lambda m: m.group(1) + text_html + m.group(2), inner, count=1, flags=re.S | re.I
                )
            else:
                inner = f"<p>{text_html}</p>"
            text = text[: found.start(2)] + inner + text[found.end(2) :]
        elif re.search(r"</body>", text, re.I):
            text = re.sub(
                r"(?i)([ \t]*)</body>",
                lambda m: (
                    f'{m.group(1)}  <footer class="site-footer">\n'
                    f"{m.group(1)}    <p>{text_html}</p>\n{m.group(1)}  </footer>\n{m.group(0)}"
                ),
                text,
                count=1,
            )
        project.files[path] = text


def _add_section(project: Project, heading: str) -> None:
    main = project.main_page
    if main is None:
        project.problems.append("no page to add a section to")
        return
    text = project.files[main]
    escaped = html.escape(heading, quote=True)
    if re.search(r"<h2\b[^>]*>\s*" + re.escape(escaped) + r"\s*</h2>", text, re.I):
        return
    for closing in (r"</main>", r"<footer\b", r"</body>"):
        found = re.search(r"(?im)^([ \t]*)" + closing, text)
        if found:
            indent = found.group(1) + "  "
            section = (
                f'{indent}<section class="section">\n{indent}  <h2>{escaped}</h2>\n'
                f"{indent}  <p>This section is new: write its content here.</p>\n{indent}</section>\n"
            )
            project.files[main] = text[: found.start()] + section + text[found.start() :]
            return
    project.problems.append(f"no <main> or <body> in {main} to add a section to")


def _set_button(project: Project, label: str) -> None:
    main = project.main_page
    pages = ([main] if main else []) + [path for path in project.paths(".html", ".htm") if path != main]
    for path in pages:
        text = project.files[path]
        found = re.search(r"(<button\b[^>]*>)(.*?)(</button>)", text, re.S | re.I)
        if found:
            project.files[path] = text[: found.start(2)] + html.escape(label, quote=True) + text[found.end(2) :]
            return
    project.problems.append("no <button> in the project")


def continue_project(prompt: str, files: dict[str, str]) -> tuple[str, dict[str, str]]:
    """One line of text saying what was changed (or what can be), and the files that changed (complete)."""
    request = read_request(prompt)
    project = Project(dict(files))
    steps = (
        (request.title, lambda: _set_title(project, request.title or ""), f'the title to "{request.title}"'),
        (
            request.mode or request.accent,
            lambda: _set_theme(project, request.mode, request.accent),
            " and ".join(
                part
                for part in (
                    f"a {request.mode} theme" if request.mode else "",
                    f"a {request.accent} accent" if request.accent else "",
                )
                if part
            ),
        ),
        (request.footer, lambda: _set_footer(project, request.footer or ""), f'the footer to "{request.footer}"'),
        (request.section, lambda: _add_section(project, request.section or ""), f'a section "{request.section}"'),
        (request.button, lambda: _set_button(project, request.button or ""), f'the button text to "{request.button}"'),
    )
    for asked, apply, what in steps:
        if not asked:
            continue
        before = dict(project.files)
        apply()
        if project.files != before:
            project.done.append(what)
    changed = {path: content for path, content in project.files.items() if files.get(path) != content}
    problems = f" (could not: {'; '.join(project.problems)})" if project.problems else ""
    if changed:
        return f"Offline template engine: changed {', '.join(project.done)}{problems}.", changed
    return f"The offline template engine changed nothing{problems}. {CAPABILITIES}", {}
