"""Multi-file answers: the text format a task asks for, and a streaming parser that turns a reply into
`FileStart` / `FileContent` / `FileEnd` events (text outside files stays `TextDelta`).

The format the prompt asks for (`FORMAT_INSTRUCTIONS`), one marker per line:

    === FILE: site/index.html ===
    <!doctype html> ...
    === END FILE ===

Small local models often answer in Markdown instead, so the parser also accepts a fenced code block
(3 or more backticks or tildes) that names its file, either in the info string

    ```html index.html      ```js title="app.js"      ```index.html
    ```html:index.html      ```python filename=app/main.py

or on the last text line before the fence (at most one blank line between), when that line holds
nothing but the path, possibly decorated: `index.html`, `**index.html**`, `### index.html`,
`File: index.html`, `` `style.css` ``, `1. index.html:`, `// app.js`, `<!-- index.html -->`. The
fence lines are not content; the block ends at a closing fence (same character, at least as long,
no info string). A fence that names no file, and all it holds, stays text. Inside a marker file a
fence is content (a README with code blocks); a marker line is recognised outside files, even inside
a fence that names no file (a model that wraps its whole answer in one).

A task with a `default_file` (the HTML artifact: one page) also takes a fence of HTML that names no file
(```html) as that file.

Both engines send their text through `FileStreamParser` when a task's output is files, so a builder
sees the same events whichever engine answered. Markers and fence lines split across stream chunks
are recognised (a line that may still become one is held back until it is complete). A reply cut
inside a file ends it with `FileEnd(complete=False)`.

Every path goes through `normalise_path`: surrounding quotes, backticks and asterisks, a leading
`./` and a trailing `:` are dropped and duplicate slashes collapsed; the result must then pass
`safe_path` (relative, no `..`, no backslash or drive letter, letters, digits, `._-` and `/` only,
at most `MAX_PATH` characters). A block whose path is refused is kept as plain text, never a file.

A safe path may still name a file that tools run or load by themselves when someone opens the folder, runs git in
it or installs it (a `.git/config` with core.fsmonitor runs a command on `git status`): `tool_file_reason` says
why such a file is refused. Whoever writes a model's files into a project (services/builder/) asks it, says so in
the build log and writes nothing; the project's directory and its zip leave such files out too.
"""

from __future__ import annotations

import re

from secdash.ai.base import Event, FileContent, FileEnd, FileStart, TextDelta

START_PREFIX = "=== FILE: "
END_MARKER = "=== END FILE ==="
MAX_PATH = 200
FORMAT_INSTRUCTIONS = (
    f"Write each file as a line `{START_PREFIX}<relative/path> ===`, then its content, then a line `{END_MARKER}`. "
    "Nothing else may appear on a marker line."
)
_START = re.compile(r"^=== FILE: (?P<path>.+?) ===[ \t]*\r?\n?$")
_END = re.compile(r"^=== END FILE ===[ \t]*\r?\n?$")
_PATH_PART = re.compile(r"^[A-Za-z0-9._-]+$")
_FENCE = re.compile(r"^(?P<indent> *)(?P<fence>`{3,}|~{3,})(?P<info>[^\r\n]*)\r?\n?$")
_MAY_BE_FENCE = re.compile(r"^ *(?:$|`{1,2}$|~{1,2}$|```|~~~)")  # the start of a line that may still be a fence
_INFO_KEY = re.compile(
    r"""(?:^|[\s{,])(?:title|file|filename|name|path)\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s,}]+))""", re.IGNORECASE
)
_HAS_EXTENSION = re.compile(r"\.[A-Za-z0-9]*[A-Za-z][A-Za-z0-9]*$")
_NAMES_WITHOUT_EXTENSION = {"Dockerfile", "Makefile", "Procfile"}
_NOT_FILES = {
    "node.js",
    "vue.js",
    "next.js",
    "nuxt.js",
    "react.js",
    "express.js",
    "three.js",
    "d3.js",
    "chart.js",
    "asp.net",
    "socket.io",
}  # names of things, in a heading before a code block
_DECORATIONS = (  # around a path alone on a line: comments, headings, list items, labels
    re.compile(r"^<!--\s*(.*?)\s*-->$"),
    re.compile(r"^/\*\s*(.*?)\s*\*/$"),
    re.compile(r"^(?:#{1,6}|//|--|;+|>)\s+(.*)$"),
    re.compile(r"^(?:\d{1,3}[.)]|[-+])\s+(.*)$"),
    re.compile(r"^(?:file\s*name|file|path)\s*:\s*(.*)$", re.IGNORECASE),
)
_MAX_LINE = MAX_PATH + 100  # a longer text line cannot name a file
_HTML_INFO = {"html", "htm", "xhtml", "html5"}  # the info string of a fence of HTML
_REFUSED = ""  # a block that names a file whose path is refused: kept as text


def safe_path(path: str) -> str | None:
    """The path if it is a safe relative path (see the module docstring), else None."""
    path = path.strip()
    if not path or len(path) > MAX_PATH or path.startswith("/"):
        return None
    parts = path.split("/")
    if any(part in ("", ".", "..") or not _PATH_PART.match(part) for part in parts):
        return None
    return path


# Dot files and dot folders are configuration that tools read, and often run, on their own: git (.git/ with its
# config and hooks, .gitattributes filters, .gitmodules URLs), Mercurial (.hg/), Subversion (.svn/), editors (.vscode/
# tasks, .idea/), shells and direnv (.bashrc, .envrc), dotenv (.env), package managers (.npmrc, .yarnrc.yml), linters
# that are scripts (.eslintrc.js), CI and hooks (.github/, .pre-commit-config.yaml), devcontainers. All of them are
# refused but these, which no tool runs anything from:
INERT_DOT_NAMES = frozenset({".gitignore", ".editorconfig", ".nojekyll", ".well-known"})
_REPOSITORY_HEAD = "head"  # a folder holding HEAD, config, objects/ and refs/ is a bare repository to git


def tool_file_reason(path: str) -> str | None:
    """Why SecDash refuses to write `path` into a project (a file that tools run or load by themselves), or None.
    Names are compared without case: on macOS and Windows `.GIT/config` is `.git/config`."""
    parts = path.split("/")
    for index, part in enumerate(parts):
        if part.startswith(".") and part.lower() not in INERT_DOT_NAMES:
            return (
                f"{part} is a dot {'file' if index == len(parts) - 1 else 'folder'}: tools such as git, editors, shells "
                "and package managers load or run those by themselves (a .git/config can run a command on "
                "`git status`), so a project never holds one"
            )
    if parts[-1].lower() == _REPOSITORY_HEAD:
        return (
            "a file named HEAD makes its folder look like a bare git repository, whose config git would obey on "
            "`git status` there, so a project never holds one"
        )
    return None


def normalise_path(raw: str) -> str | None:
    """The path a marker or a fenced block names, tidied (see the module docstring); None if refused."""
    path, previous = raw, None
    while path != previous:
        previous = path
        path = re.sub(r"/{2,}", "/", path.strip().strip("\"'`*").strip())
        path = path.removesuffix(":").removeprefix("./")
    return safe_path(path)


def file_block(path: str, content: str) -> str:
    """One file in the format (for offline answers and tests)."""
    body = content if content.endswith("\n") or not content else content + "\n"
    return f"{START_PREFIX}{path} ===\n{body}{END_MARKER}\n"


def _looks_like_file(word: str) -> bool:
    return bool(_HAS_EXTENSION.search(word)) and word.lower() not in _NOT_FILES


def _named_path(raw: str) -> str:
    """A named path, normalised, or `_REFUSED`."""
    return normalise_path(raw) or _REFUSED


def _path_in_info(info: str) -> str | None:
    """The path a fence's info string names (`_REFUSED` if unsafe), None if it names none."""
    info = info.strip()
    if not info:
        return None
    if key := _INFO_KEY.search(info):
        return _named_path(next(group for group in key.groups() if group is not None))
    words = info.split()
    _language, colon, path = words[0].partition(":")
    if colon and path:  # ```html:index.html
        words[0] = path
    for word in words[:2]:
        word = word.strip("\"'`*")
        if _looks_like_file(word):
            return _named_path(word)
    return None


def _path_on_line(line: str) -> str | None:
    """The path a text line holds and nothing else (`_REFUSED` if unsafe), None if it is not just a path."""
    text = line.strip().replace("*", "").replace("`", "")
    if not text or len(text) > _MAX_LINE:
        return None
    previous = None
    while text != previous:
        previous = text
        for decoration in _DECORATIONS:
            if match := decoration.match(text):
                text = match.group(1)
        text = text.strip().removesuffix(":").strip().strip("\"'")
    if not text or any(char.isspace() for char in text):
        return None
    if not _looks_like_file(text) and text.rsplit("/", 1)[-1] not in _NAMES_WITHOUT_EXTENSION:
        return None
    return _named_path(text)


class _Fence:
    """An open fenced block: its fence character and length, and its indentation."""

    def __init__(self, fence: str, indent: int) -> None:
        self.char, self.length, self.indent = fence[0], len(fence), indent

    def closed_by(self, line: str) -> bool:
        fence = _FENCE.match(line)
        return bool(
            fence
            and not fence.group("info").strip()
            and fence.group("fence")[0] == self.char
            and len(fence.group("fence")) >= self.length
            and len(fence.group("indent")) <= max(3, self.indent)
        )

    def dedent(self, text: str) -> str:
        """Content indented like its fence (a block in a list item) loses that indentation."""
        spaces = len(text) - len(text.lstrip(" "))
        return text[min(spaces, self.indent) :]


class FileStreamParser:
    """Feed text as it arrives; get events. Call `close()` at the end of the stream."""

    def __init__(self, default_path: str | None = None) -> None:
        self._default = default_path  # a fence of HTML that names no file writes this file (HTML artifacts)
        self._pending = ""  # the start of a line that may still become a marker or a fence
        self._at_line_start = True
        self._path: str | None = None  # the file being written
        self._fence: _Fence | None = None  # the fence of that file (None: a marker file)
        self._plain: _Fence | None = None  # a fenced block in the text that names no file
        self._line = ""  # the text line being streamed, to look back at for a file name
        self._named: str | None = None  # the path the last text line holds (`_REFUSED`: an unsafe one)
        self._blank_lines = 0  # blank lines since that line

    def _text(self, text: str) -> list[Event]:
        if not text:
            return []
        if self._path is not None:
            return [FileContent(self._path, text)]
        if len(self._line) <= _MAX_LINE:
            self._line += text
        return [TextDelta(text)]

    def _line_start(self, text: str) -> list[Event]:
        """The start of a line that is neither a marker nor a fence."""
        return self._text(self._fence.dedent(text) if self._fence is not None else text)

    def _line_ended(self) -> None:
        """Remember whether the text line just ended names a file for a fence right below it."""
        line, self._line = self._line, ""
        if self._path is not None or self._plain is not None:
            return
        if line.strip():
            self._named, self._blank_lines = _path_on_line(line), 0
            return
        self._blank_lines += 1
        if self._blank_lines > 1:
            self._named = None

    def _may_be_marker(self, partial: str) -> bool:
        if self._path is not None and self._fence is None:
            return END_MARKER.startswith(partial) or partial.startswith(END_MARKER)
        if self._path is None and (START_PREFIX.startswith(partial) or partial.startswith(START_PREFIX)):
            return True
        return bool(_MAY_BE_FENCE.match(partial))

    def _open(self, path: str, fence: _Fence | None = None) -> list[Event]:
        self._path, self._fence, self._named = path, fence, None
        return [FileStart(path)]

    def _close(self, complete: bool = True) -> list[Event]:
        path, self._path, self._fence = self._path, None, None
        return [FileEnd(path, complete=complete)] if path is not None else []

    def _marker_or_fence(self, line: str) -> list[Event] | None:
        """The events of a complete line if it opens or ends a file, else None (the line is text or content)."""
        if self._path is not None:
            if self._fence is None:  # in a marker file, fences are content
                return self._close() if _END.match(line) else None
            return self._close() if self._fence.closed_by(line) else None
        if (start := _START.match(line)) and (path := normalise_path(start.group("path"))):
            return self._open(path)
        if self._plain is not None:
            if self._plain.closed_by(line):
                self._plain = None
            return None
        fence = _FENCE.match(line)
        if not fence or (fence.group("fence")[0] == "`" and "`" in fence.group("info")):
            return None
        block = _Fence(fence.group("fence"), len(fence.group("indent")))
        path = _path_in_info(fence.group("info"))
        if path is None:
            path = self._named
        if path is None and self._default and fence.group("info").strip().split(" ")[0].lower() in _HTML_INFO:
            path = self._default
        if path:
            return self._open(path, block)
        self._plain, self._named = block, None  # a block that names no (safe) file is text
        return None

    def _complete_line(self, line: str) -> list[Event]:
        """A complete line (ending in a newline, unless the stream ended) that began at a line start."""
        events = self._marker_or_fence(line)
        if events is not None:
            self._line = ""
            return events
        events = self._line_start(line)
        self._line_ended()
        return events

    def feed(self, text: str) -> list[Event]:
        events: list[Event] = []
        while text:
            if not self._at_line_start:
                head, newline, text = text.partition("\n")
                events += self._text(head + newline)
                if newline:
                    self._line_ended()
                self._at_line_start = bool(newline)
                continue
            buffered = self._pending + text
            head, newline, rest = buffered.partition("\n")
            if newline:
                self._pending = ""
                events += self._complete_line(head + newline)
                text = rest
                continue
            if self._may_be_marker(buffered):
                self._pending = buffered  # wait for the rest of the line
            else:
                self._pending = ""
                events += self._line_start(buffered)
                self._at_line_start = False
            text = ""
        return events

    def close(self) -> list[Event]:
        """Flush what is held back; a file left open ends incomplete."""
        events: list[Event] = []
        if self._pending:
            pending, self._pending = self._pending, ""
            events += self._complete_line(pending)
        events += self._close(complete=False)
        self._plain, self._named, self._line, self._blank_lines, self._at_line_start = None, None, "", 0, True
        return events
