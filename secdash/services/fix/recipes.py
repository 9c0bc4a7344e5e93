"""The offline engine's fix recipes: one deterministic, reviewable rewrite per scanner rule.

Each recipe gets the whole file text (read with `newline=""`, so line endings survive) and the finding, and returns
the new text, or None when it cannot be sure the rewrite is safe (then Fix Mode says "no offline recipe" instead of
guessing). Recipes change the flagged line and the few lines that must change with it (an import, the call that
receives a query's parameters, a handler's new script), nothing else, so the diff stays small enough to review.
"""

from __future__ import annotations

import ast
import hashlib
import html
import io
import json
import os
import re
import shutil
import tokenize
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import PurePosixPath

from secdash.services.code_scan import Finding
from secdash.services.fix import eval_recipe
from secdash.services.fix.patches import split_lines, unified_diff

Fix = Callable[[str, Finding], "str | None"]
PY_SUFFIXES = {".py", ".pyw"}
JS_SUFFIXES = {".js", ".mjs", ".cjs", ".jsx", ".ts", ".tsx"}
HTML_SUFFIXES = {".html", ".htm"}
_STRING = re.compile(r"""(?P<q>["'])(?P<body>(?:\\.|(?!(?P=q)).)*)(?P=q)""")
_SHELL_META = set("|&;<>()$`*?[]{}~!#\"'\\\n")


@dataclass(frozen=True)
class Recipe:
    """A rule's fix: what it does and what could go wrong, shown to the reviewer next to the diff."""

    rule_prefix: str
    explanation: str
    risk: str
    fix: Fix

    def __call__(self, text: str, finding: Finding) -> str | None:
        return self.fix(text, finding)


# --- small helpers over lines and JavaScript expressions ---------------------------------------------------------


def _line_at(text: str, number: int) -> tuple[list[str], str, str] | None:
    """(all lines, the line's content, its ending) for a 1-based line number."""
    lines = split_lines(text)
    if not 0 < number <= len(lines):
        return None
    line = lines[number - 1]
    content = line.rstrip("\r\n")
    return lines, content, line[len(content) :]


def _replace_line(lines: list[str], number: int, content: str, ending: str) -> str:
    lines = list(lines)
    lines[number - 1] = content + ending
    return "".join(lines)


def _suffix(finding: Finding) -> str:
    return PurePosixPath(finding.file).suffix.lower()


def _js_parts(expr: str) -> list[tuple[str, str]] | None:
    """A JavaScript `+` chain as ("str", raw literal) / ("expr", source) parts, or None if it cannot be read."""
    parts: list[str] = []
    depth, start, index = 0, 0, 0
    while index < len(expr):
        char = expr[index]
        if char in "\"'`":
            end = index + 1
            while end < len(expr) and expr[end] != char:
                end += 2 if expr[end] == "\\" else 1
            if end >= len(expr):
                return None
            index = end
        elif char in "([{":
            depth += 1
        elif char in ")]}":
            depth -= 1
            if depth < 0:
                return None
        elif char == "+" and depth == 0 and expr[index + 1 : index + 2] not in ("+", "=") and expr[index - 1 : index] != "+":
            parts.append(expr[start:index].strip())
            start = index + 1
        index += 1
    if depth:
        return None
    parts.append(expr[start:].strip())
    if any(not part for part in parts):
        return None
    return [("str" if _is_literal(part) else "expr", part) for part in parts]


def _is_literal(part: str) -> bool:
    match = _STRING.fullmatch(part)
    return match is not None


def _statement_end(text: str, start: int, stops: str = ";") -> int | None:
    """Index of the `;` (or other stop, an unopened closing bracket, or the line end) that ends the expression
    starting at `start`, skipping strings and brackets; None when a string or bracket is left open."""
    depth, index = 0, start
    while index < len(text):
        char = text[index]
        if char in "\"'`":
            end = index + 1
            while end < len(text) and text[end] != char:
                end += 2 if text[end] == "\\" else 1
            if end >= len(text):
                return None
            index = end
        elif char in "([{":
            depth += 1
        elif char in ")]}":
            if depth == 0:
                return index
            depth -= 1
        elif char in stops and depth == 0:
            return index
        index += 1
    return len(text) if depth == 0 else None


def _strip_markup(parts: list[tuple[str, str]]) -> str:
    """The chain with tags removed from its string literals, so text shows as text (no `<b>` drawn literally)."""
    kept: list[tuple[str, str]] = []
    for kind, raw in parts:
        if kind == "str":
            quote, body = raw[0], re.sub(r"<[^<>]*>", "", raw[1:-1])
            if not body:
                continue
            raw = quote + body + quote
        kept.append((kind, raw))
    if not kept:
        return '""'
    if len(kept) > 1 and kept[0][0] == kept[1][0] == "expr" and any(kind == "str" for kind, _ in parts):
        kept.insert(0, ("str", '""'))  # keep string concatenation, not numeric addition
    return " + ".join(raw for _, raw in kept)


def _env_name(identifier: str) -> str:
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", identifier).upper()


# --- hard-coded secrets ----------------------------------------------------------------------------------------


def _secret_literal(content: str, finding: Finding) -> re.Match[str] | None:
    literals = [m for m in _STRING.finditer(content) if not (m.start() and content[m.start() - 1].isalnum())]
    if finding.code.startswith("secret-sha1:"):
        wanted = finding.code.removeprefix("secret-sha1:")
        for match in literals:
            if hashlib.sha1(match.group("body").encode(), usedforsecurity=False).hexdigest() == wanted:
                return match
        return None
    return literals[0] if len(literals) == 1 else None


def _ensure_import(text: str, module: str) -> str | None:
    """The text with a top-level `import <module>` (unchanged when the file has one).

    The new import goes among the file's first block of imports, before the first plain `import` that sorts after
    it (else after the last one), so a file with sorted imports keeps them sorted.
    """
    if re.search(rf"^import\s+(?:[\w.]+\s*,\s*)*{re.escape(module)}(?:\.\w+)?\s*(?:,|$|#)", text, re.MULTILINE):
        return text
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return None
    lines = split_lines(text)
    ending = "\r\n" if lines and lines[0].endswith("\r\n") else "\n"
    at = 0
    imports = [node for node in tree.body if isinstance(node, (ast.Import, ast.ImportFrom))]
    regular = [node for node in imports if not (isinstance(node, ast.ImportFrom) and node.module == "__future__")]
    if regular:
        block = [regular[0]]
        for node in regular[1:]:
            if node.lineno != (block[-1].end_lineno or block[-1].lineno) + 1:
                break
            block.append(node)
        plain = [node for node in block if isinstance(node, ast.Import)]
        later = next((node for node in plain if node.names[0].name.lower() > module.lower()), None)
        if later is not None:
            at = later.lineno - 1
        elif plain:
            at = plain[-1].end_lineno or plain[-1].lineno
        else:
            at = block[0].lineno - 1
    elif imports:
        at = imports[-1].end_lineno or imports[-1].lineno
    elif tree.body and isinstance(tree.body[0], ast.Expr) and isinstance(getattr(tree.body[0], "value", None), ast.Constant):
        at = tree.body[0].end_lineno or 1
    else:
        while at < len(lines) and lines[at].startswith("#"):
            at += 1
    if at >= len(lines) and lines and not lines[-1].endswith("\n"):
        lines[-1] += ending
    lines.insert(at, f"import {module}{ending}")
    return "".join(lines)


def _fix_secret(text: str, finding: Finding) -> str | None:
    found = _line_at(text, finding.line)
    suffix = _suffix(finding)
    if found is None or suffix not in PY_SUFFIXES | JS_SUFFIXES:
        return None
    lines, content, ending = found
    literal = _secret_literal(content, finding)
    if literal is None:
        return None
    target = re.match(r"\s*(?:(?:export\s+)?(?:const|let|var)\s+)?([A-Za-z_$][\w$]*)\s*(?::[^=]+)?[:=]", content)
    kind = finding.rule.removeprefix("secret:")
    name = _env_name(target.group(1)) if target else re.sub(r"\W+", "_", kind).strip("_").upper()
    if not re.fullmatch(r"[A-Z_][A-Z0-9_]*", name):
        return None
    lookup = f'os.environ.get("{name}", "")' if suffix in PY_SUFFIXES else f"process.env.{name}"
    new_text = _replace_line(lines, finding.line, content[: literal.start()] + lookup + content[literal.end() :], ending)
    return _ensure_import(new_text, "os") if suffix in PY_SUFFIXES else new_text


# --- JavaScript rules ------------------------------------------------------------------------------------------


def _fix_eval(text: str, finding: Finding) -> str | None:
    found = _line_at(text, finding.line)
    if found is None:
        return None
    lines, content, ending = found
    new = eval_recipe.rewrite_line(text, content)
    return _replace_line(lines, finding.line, new, ending) if new is not None else None


def _fix_new_function(text: str, finding: Finding) -> str | None:
    """Only `new Function("return " + data)()`: the one shape that is a data parser in disguise."""
    found = _line_at(text, finding.line)
    if found is None:
        return None
    lines, content, ending = found
    match = re.search(r"""\bnew\s+Function\s*\(\s*(["'])return\s*\1\s*\+""", content)
    if match is None:
        return None
    close = _statement_end(content, match.end())
    if close is None or close >= len(content) or content[close] != ")":
        return None
    call = re.match(r"\s*\(\s*\)", content[close + 1 :])
    argument = content[match.end() : close].strip()
    if call is None or not argument:
        return None
    new = content[: match.start()] + f"JSON.parse({argument})" + content[close + 1 + call.end() :]
    return _replace_line(lines, finding.line, new, ending)


def _fix_inner_html(text: str, finding: Finding) -> str | None:
    found = _line_at(text, finding.line)
    if found is None:
        return None
    lines, content, ending = found
    match = re.search(r"\.innerHTML\s*=(?!=)\s*", content)
    if match is None:
        return None
    end = _statement_end(content, match.end())
    parts = _js_parts(content[match.end() : end]) if end is not None else None
    if parts is None:
        return None
    new = content[: match.start()] + ".textContent = " + _strip_markup(parts) + content[end:]
    return _replace_line(lines, finding.line, new, ending)


def _fix_document_write(text: str, finding: Finding) -> str | None:
    found = _line_at(text, finding.line)
    if found is None:
        return None
    lines, content, ending = found
    match = re.search(r"\bdocument\.write(?:ln)?\s*\(", content)
    if match is None:
        return None
    close = _statement_end(content, match.end())
    if close is None or close >= len(content) or content[close] != ")":
        return None
    arguments = content[match.end() : close]
    parts = _js_parts(arguments) if _statement_end(arguments, 0, ",;") == len(arguments) else None
    if parts is None:
        return None
    node = f"document.createTextNode({_strip_markup(parts)})"
    new = content[: match.start()] + f"document.currentScript.after({node})" + content[close + 1 :]
    return _replace_line(lines, finding.line, new, ending)


def _sql_quote_trim(body: str, *, at_end: bool) -> tuple[str, bool]:
    """The literal's text with the SQL quote that wrapped a concatenated value removed (and whether there was one)."""
    for quote in ("\\'", "'", '\\"', '"'):
        if at_end and body.endswith(quote):
            return body[: -len(quote)], True
        if not at_end and body.startswith(quote):
            return body[len(quote) :], True
    return body, False


def _fix_sql_concatenation(text: str, finding: Finding) -> str | None:
    found = _line_at(text, finding.line)
    if found is None:
        return None
    lines, content, ending = found
    start = re.search(r"""(["'])\s*(?:SELECT|INSERT|UPDATE|DELETE)\b""", content, re.IGNORECASE)
    if start is None:
        return None
    end = _statement_end(content, start.start(), ";,")
    parts = _js_parts(content[start.start() : end]) if end is not None else None
    if parts is None or parts[0][0] != "str" or all(kind == "str" for kind, _ in parts):
        return None
    quote = parts[0][1][0]
    sql = ""
    params: list[str] = []
    for index, (kind, raw) in enumerate(parts):
        if kind == "str":
            body = raw[1:-1]
            if index and parts[index - 1][0] == "expr":
                body, _ = _sql_quote_trim(body, at_end=False)
            if index + 1 < len(parts) and parts[index + 1][0] == "expr":
                body, _ = _sql_quote_trim(body, at_end=True)
            if raw[0] != quote:
                return None
            sql += body
        else:
            sql, params = sql + "?", params + [raw]
    query = f"{quote}{sql}{quote}"
    values = "[" + ", ".join(params) + "]"
    before, after = content[: start.start()], content[end:]
    if before.rstrip().endswith("(") and after[:1] in (")", ","):  # db.all("SELECT ..." + x)
        return _replace_line(lines, finding.line, f"{before}{query}, {values}{after}", ending)
    declared = re.search(r"\b(?:const|let|var)\s+([A-Za-z_$][\w$]*)\s*=\s*$", before)
    if declared is None:
        return None
    name = declared.group(1)
    lines = list(lines)
    lines[finding.line - 1] = f"{before}{query}{after}{ending}"
    use = re.compile(rf"(\b[\w$.]+\s*\(\s*){re.escape(name)}(\s*\))")
    for number in range(finding.line, len(lines)):
        if use.search(lines[number]):
            lines[number] = use.sub(rf"\g<1>{name}, {values}\g<2>", lines[number], count=1)
            return "".join(lines)
    return None


# --- HTML --------------------------------------------------------------------------------------------------


def _moved_handler(text: str, finding: Finding) -> tuple[list[str], list[str], str, str] | None:
    """(the page's lines with the handler attributes gone, the listener statements, the element's id, the line
    ending) for an inline handler, or None when it cannot be moved safely."""
    found = _line_at(text, finding.line)
    if found is None:
        return None
    lines, content, ending = found
    tags = [
        m for m in re.finditer(r"<([a-zA-Z][\w-]*)([^>]*)>", content) if re.search(r"\son[a-z]+\s*=", m.group(2), re.IGNORECASE)
    ]
    if len(tags) != 1:
        return None
    tag = tags[0]
    handlers = list(re.finditer(r"""\s(on[a-z]+)\s*=\s*(?:"([^"]*)"|'([^']*)')""", tag.group(2), re.IGNORECASE))
    attrs = re.sub(r"""\son[a-z]+\s*=\s*(?:"[^"]*"|'[^']*')""", "", tag.group(2), flags=re.IGNORECASE)
    if not handlers or re.search(r"\son[a-z]+\s*=", attrs, re.IGNORECASE):
        return None
    existing = re.search(r"""\sid\s*=\s*["']([^"']+)["']""", attrs)
    element_id = existing.group(1) if existing else f"secdash-{tag.group(1).lower()}-{finding.line}"
    if not existing:
        if element_id in text:
            return None
        attrs = f' id="{element_id}"' + attrs
    listeners = []
    for handler in handlers:
        code = html.unescape(handler.group(2) if handler.group(2) is not None else handler.group(3)).strip()
        if not code or "return" in code or "</" in code:
            return None
        event = handler.group(1).lower()[2:]
        listeners.append(
            f"document.getElementById({json.dumps(element_id)}).addEventListener({json.dumps(event)}, "
            f"function (event) {{ {code.rstrip(';')}; }});"
        )
    lines = list(lines)
    lines[finding.line - 1] = content[: tag.start()] + f"<{tag.group(1)}{attrs}>" + content[tag.end() :] + ending
    return lines, listeners, element_id, ending


def _fix_inline_handler(text: str, finding: Finding) -> str | None:
    """The handler as a listener in a script block at the end of the body (when the page has no script file of
    its own to take it: see `move_handler_to_script`)."""
    moved = _moved_handler(text, finding)
    if moved is None:
        return None
    lines, listeners, _element_id, ending = moved
    body_end = next((index for index in range(len(lines) - 1, -1, -1) if "</body>" in lines[index].lower()), None)
    if body_end is None or body_end < finding.line:
        return None
    leading = re.match(r"\s*", lines[body_end])
    assert leading is not None  # \s* matches every string
    indent = leading.group(0) + "  "
    lines.insert(body_end, f"{indent}<script>{' '.join(listeners)}</script>{ending}")
    return "".join(lines)


def move_handler_to_script(
    text: str, finding: Finding, path: str, read: Callable[[str], str | None]
) -> dict[str, tuple[str, str]] | None:
    """{path: (before, after)}: the handler moved into the page's own script file, the first local script the
    page loads after the element (so the element exists when it runs), where a Content-Security-Policy with
    `script-src 'self'` lets it run (an inline script block would be blocked). None when the page loads no such
    script (then the single-file recipe puts a script block at the end of the body)."""
    from secdash.services.fix.scope import page_scripts

    script = next((src for src, line in page_scripts(path, text) if line > finding.line), None)
    script_text = read(script) if script else None
    moved = _moved_handler(text, finding) if script_text is not None else None
    if moved is None or script is None or script_text is None:
        return None
    lines, listeners, _element_id, _ending = moved
    newline = "\r\n" if "\r\n" in script_text else "\n"
    addition = (
        f"{newline}// Moved here by SecDash Fix Mode from the inline handler in {path}, line {finding.line}: a "
        f"Content-Security-Policy{newline}// with script-src 'self' blocks inline handlers and inline scripts, "
        f"not this file.{newline}" + newline.join(listeners) + newline
    )
    body = script_text if script_text.endswith(("\n", "\r")) or not script_text else script_text + newline
    return {path: (text, "".join(lines)), script: (script_text, body + addition)}


# --- Python (bandit) ---------------------------------------------------------------------------------------


def _text_offset(lines: list[str], lineno: int, col: int) -> int:
    """A string index from ast's (1-based line, UTF-8 byte column)."""
    return sum(len(line) for line in lines[: lineno - 1]) + len(lines[lineno - 1].encode()[:col].decode())


def _command_parts(node: ast.expr, text: str) -> list[tuple[str, str]] | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [("str", node.value)]
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = _command_parts(node.left, text), _command_parts(node.right, text)
        return None if left is None or right is None else left + right
    if isinstance(node, ast.JoinedStr):
        parts: list[tuple[str, str]] = []
        for value in node.values:
            if isinstance(value, ast.Constant) and isinstance(value.value, str):
                parts.append(("str", value.value))
            elif isinstance(value, ast.FormattedValue) and value.conversion == -1 and value.format_spec is None:
                source = ast.get_source_segment(text, value.value)
                if source is None:
                    return None
                parts.append(("expr", f"str({source})"))
            else:
                return None
        return parts
    source = ast.get_source_segment(text, node)
    return None if source is None or not any(isinstance(node, t) for t in (ast.Name, ast.Attribute)) else [("expr", source)]


def _argument_list(parts: list[tuple[str, str]]) -> str | None:
    """The shell command as a Python list literal: literals split on whitespace, values glued to their neighbours."""
    if all(kind == "expr" for kind, _ in parts):
        return None  # a whole command held in a variable: its words are unknown here
    args: list[list[str]] = []
    current: list[str] = []
    for kind, value in parts:
        if kind == "expr":
            current.append(value)
            continue
        if _SHELL_META & set(value):
            return None  # pipes, redirects, globs, quotes: the shell did real work; no safe list form
        for token in re.split(r"(\s+)", value):
            if not token:
                continue
            if token.isspace():
                if current:
                    args.append(current)
                current = []
            else:
                current.append(json.dumps(token, ensure_ascii=False))
    if current:
        args.append(current)
    return "[" + ", ".join(" + ".join(arg) for arg in args) + "]" if args else None


def _fix_shell_true(text: str, finding: Finding) -> str | None:
    try:
        module = ast.parse(text)
    except SyntaxError:
        return None
    calls = [
        node
        for node in ast.walk(module)
        if isinstance(node, ast.Call)
        and node.lineno <= finding.line <= (node.end_lineno or node.lineno)
        and node.args
        and any(k.arg == "shell" and isinstance(k.value, ast.Constant) and k.value.value is True for k in node.keywords)
    ]
    if len(calls) != 1:
        return None
    call = calls[0]
    parts = _command_parts(call.args[0], text)
    replacement = _argument_list(parts) if parts else None
    if replacement is None:
        return None
    lines = split_lines(text)
    keyword_index = next(i for i, k in enumerate(call.keywords) if k.arg == "shell")
    keyword = call.keywords[keyword_index]
    before_shell: list[ast.expr | ast.keyword] = [*call.args, *call.keywords[:keyword_index]]
    if not before_shell:
        return None
    previous = before_shell[-1]
    cut_from = _text_offset(lines, previous.end_lineno, previous.end_col_offset)  # type: ignore[arg-type]
    cut_to = _text_offset(lines, keyword.end_lineno, keyword.end_col_offset)  # type: ignore[arg-type]
    first = call.args[0]
    arg_from = _text_offset(lines, first.lineno, first.col_offset)
    arg_to = _text_offset(lines, first.end_lineno, first.end_col_offset)  # type: ignore[arg-type]
    if cut_from < arg_to:
        return None
    return text[:arg_from] + replacement + text[arg_to:cut_from] + text[cut_to:]


_PICKLE_CALLS = {"loads", "dumps", "load", "dump"}


def _fix_pickle(text: str, finding: Finding) -> str | None:
    """pickle -> json for every call in the file (the import and the calls are fixed together, or not at all)."""
    if _suffix(finding) not in PY_SUFFIXES:
        return None
    uses = re.findall(r"\bpickle\.(\w+)", text)
    imports = re.findall(r"^import pickle[ \t]*(?:#.*)?\r?$", text, re.MULTILINE)
    if not uses and not imports or any(name not in _PICKLE_CALLS for name in uses) or len(imports) != 1:
        return None
    if re.search(r"\bpickle\b", re.sub(r"\bpickle\.(?:loads|dumps|load|dump)\b|^import pickle\b", "", text, flags=re.MULTILINE)):
        return None  # pickle is used some other way (aliases, from-imports, mentions): not a mechanical change
    has_json = re.search(r"^import json\b", text, re.MULTILINE) is not None
    new = re.sub(r"\bpickle\.(loads|dumps|load|dump)\b", r"json.\1", text)
    return re.sub(
        r"^import pickle[ \t]*(?:#.*)?(\r?\n|$)", "" if has_json else r"import json\1", new, count=1, flags=re.MULTILINE
    )


_LITERAL = re.compile(r"""(?P<prefix>[rRuUfF]{0,2})(?P<q>'''|\"\"\"|'|")(?P<body>.*)(?P=q)""", re.DOTALL)
# The calls bandit's shell_injection rules check, by last name: the program or command is their first argument.
_PROCESS_CALLS = {
    "Popen",
    "call",
    "check_call",
    "check_output",
    "run",
    "system",
    "popen",
    "popen2",
    "popen3",
    "popen4",
    "Popen3",
    "Popen4",
    "getoutput",
    "getstatusoutput",
    "execl",
    "execle",
    "execlp",
    "execlpe",
    "execv",
    "execve",
    "execvp",
    "execvpe",
    "startfile",
}


def _parse(text: str) -> ast.Module | None:
    try:
        return ast.parse(text)
    except SyntaxError:
        return None


def _segment(lines: list[str], node: ast.expr) -> tuple[int, int]:
    return (_text_offset(lines, node.lineno, node.col_offset), _text_offset(lines, node.end_lineno, node.end_col_offset))  # type: ignore[arg-type]


def _splice(text: str, edits: list[tuple[int, int, str]]) -> str:
    for start, end, replacement in sorted(edits, reverse=True):
        text = text[:start] + replacement + text[end:]
    return text


def _same_literal(source: str, expected: ast.expr) -> bool:
    """Whether Python reads `source` as exactly `expected` (a string or f-string), so a rewrite keeps the value."""
    try:
        parsed = ast.parse(source, mode="eval").body
    except SyntaxError:
        return False
    return ast.dump(parsed) == ast.dump(expected)


_TMP = "/tmp"  # noqa: S108 - the fixed path the B108 recipe looks for, not one it uses
_TMP_PREFIX = _TMP + "/"


def _tmp_replacement(source: str, node: ast.Constant | ast.JoinedStr) -> str | None:
    """`os.path.join(tempfile.gettempdir(), <the rest>)` for a "/tmp/..." literal, in the literal's own spelling."""
    literal = _LITERAL.fullmatch(source)
    if literal is None:
        return None
    prefix, quote, body = literal.group("prefix", "q", "body")
    first = node if isinstance(node, ast.Constant) else node.values[0] if node.values else None
    if not isinstance(first, ast.Constant) or not isinstance(first.value, str):
        return None
    if first is node and first.value == body == _TMP:
        return "tempfile.gettempdir()"
    if not (first.value.startswith(_TMP_PREFIX) and body.startswith(_TMP_PREFIX)):
        return None  # "/tmpfiles", or a /tmp spelled with escapes: not simply a path under /tmp
    rest = prefix + quote + body[len(_TMP_PREFIX) :] + quote
    if isinstance(node, ast.Constant):
        expected: ast.expr = ast.Constant(value=first.value[len(_TMP_PREFIX) :])
    else:
        trimmed = first.value[len(_TMP_PREFIX) :]
        expected = ast.JoinedStr(values=([ast.Constant(value=trimmed)] if trimmed else []) + node.values[1:])
    if not _same_literal(rest, expected):
        return None  # implicit concatenation or an unusual spelling: the rest would not read back the same
    return f"os.path.join(tempfile.gettempdir(), {rest})"


def _fix_hardcoded_tmp(text: str, finding: Finding) -> str | None:
    """Every "/tmp/..." string literal on the flagged line joins the system's temp directory instead."""
    tree = _parse(text)
    if _suffix(finding) not in PY_SUFFIXES or tree is None:
        return None
    lines = split_lines(text)
    fixed: set[int] = set()  # strings that must stay literals: docstrings, parts of f-strings, match patterns
    for node in ast.walk(tree):
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
            fixed.add(id(node.value))
        elif isinstance(node, (ast.JoinedStr, ast.pattern)):
            fixed.update(id(child) for child in ast.walk(node) if child is not node or isinstance(node, ast.pattern))
    edits = []
    for node in ast.walk(tree):
        if id(node) in fixed or getattr(node, "lineno", None) != finding.line:
            continue
        if isinstance(node, ast.JoinedStr) or isinstance(node, ast.Constant) and isinstance(node.value, str):
            start, end = _segment(lines, node)
            replacement = _tmp_replacement(text[start:end], node)
            if replacement is not None:
                edits.append((start, end, replacement))
    if not edits:
        return None
    new_text = _ensure_import(_splice(text, edits), "tempfile")
    if new_text is not None and any(replacement.startswith("os.") for _, _, replacement in edits):
        new_text = _ensure_import(new_text, "os")
    return new_text if new_text is not None and _parse(new_text) is not None else None


def _call_name(call: ast.Call) -> str:
    func = call.func
    return func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""


def _absolute_program(source: str, value: str, whole: bool) -> str | None:
    """The literal naming a program (the whole string, or its first word when `whole` is False) rewritten to the
    program's absolute path on this server, or None when it is not a bare name or PATH has no such program."""
    literal = _LITERAL.fullmatch(source)
    word = re.match(r"[\w+-][\w.+-]*", value)
    if literal is None or "f" in literal.group("prefix").lower() or word is None:
        return None
    name = word.group(0)
    if name != value if whole else value[len(name) : len(name) + 1] not in ("", " ", "\t"):
        return None
    prefix, quote, body = literal.group("prefix", "q", "body")
    found = shutil.which(name)
    if found is None or not os.path.isabs(found) or quote in found or not body.startswith(name):
        return None
    if not whole and re.search(r"""[\s"'$`\\|&;<>()*?\[\]{}~!#]""", found):
        return None  # a command line: a path with spaces or shell characters would need quoting
    spelled = found if "r" in prefix.lower() else found.replace("\\", "\\\\")
    new = prefix + quote + spelled + body[len(name) :] + quote
    return new if _same_literal(new, ast.Constant(value=found + value[len(name) :])) else None


def _fix_partial_path(text: str, finding: Finding) -> str | None:
    """The program that starts the command (an argument list's first item, or a command string's first word)
    becomes the absolute path `shutil.which` finds for it on this server now."""
    tree = _parse(text)
    if _suffix(finding) not in PY_SUFFIXES or tree is None:
        return None
    lines = split_lines(text)
    calls = [
        node
        for node in ast.walk(tree)
        if isinstance(node, ast.Call) and node.lineno == finding.line and node.args and _call_name(node) in _PROCESS_CALLS
    ]
    edits = []
    for call in calls:
        program, whole = call.args[0], False
        if isinstance(program, ast.List) and program.elts:
            program, whole = program.elts[0], True
        if not (isinstance(program, ast.Constant) and isinstance(program.value, str)):
            continue
        start, end = _segment(lines, program)
        replacement = _absolute_program(text[start:end], program.value, whole)
        if replacement is None:
            return None
        edits.append((start, end, replacement))
    return _splice(text, edits) if edits else None


_NOSEC = re.compile(r"#\s*nosec:?\s*(?P<tests>\w+(?:\s*,\s*\w+)*)?")  # as bandit reads it (its NOSEC_COMMENT)


def _mark_reviewed(text: str, number: int, test_id: str) -> str | None:
    """The line with bandit's `# nosec <test>` marker added (after any comment, or into the line's nosec list).

    Only a comment changes: the rewrite is refused unless the file's syntax tree stays exactly the same.
    """
    found = _line_at(text, number)
    tree = _parse(text)
    if found is None or tree is None:
        return None
    lines, content, ending = found
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(text).readline))
    except (tokenize.TokenError, SyntaxError):
        return None
    if any(token.start[0] <= number < token.end[0] for token in tokens if token.type == tokenize.STRING):
        return None  # the line ends inside a multi-line string: a "comment" there would be text
    comment = next((token for token in tokens if token.type == tokenize.COMMENT and token.start[0] == number), None)
    nosec = _NOSEC.search(comment.string) if comment else None
    if comment is not None and nosec is not None:
        if not nosec.group("tests"):
            return None  # a bare `# nosec` already silences everything on the line
        at = comment.start[1] + nosec.end("tests")  # tokenize counts characters, not bytes
        new = content[:at] + f", {test_id}" + content[at:]
    else:
        new = content.rstrip(" \t") + f"  # nosec {test_id}"
    new_text = _replace_line(lines, number, new, ending)
    new_tree = _parse(new_text)
    return new_text if new_tree is not None and ast.dump(new_tree) == ast.dump(tree) else None


def _has_shell(call: ast.Call) -> bool:
    """bandit's reading of `shell=`: true unless it is a false constant (any expression may be true)."""
    for keyword in call.keywords:
        if keyword.arg is None:
            return True  # **options may carry shell=True
        if keyword.arg == "shell":
            value = keyword.value
            if isinstance(value, ast.Constant):
                return bool(value.value)
            if isinstance(value, (ast.List, ast.Tuple, ast.Set)):
                return bool(value.elts)
            return not (isinstance(value, ast.Dict) and not value.keys)
    return False


def _fix_subprocess_reviewed(text: str, finding: Finding) -> str | None:
    """Marks a call that passes an argument list without a shell as reviewed (bandit B603)."""
    tree = _parse(text)
    if _suffix(finding) not in PY_SUFFIXES or tree is None:
        return None
    calls = [
        node
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and node.args
        and _call_name(node) in _PROCESS_CALLS
        and (node.lineno == finding.line or any(k.arg == "shell" and k.value.lineno == finding.line for k in node.keywords))
    ]
    if not calls or any(_has_shell(call) or not isinstance(call.args[0], (ast.List, ast.Tuple)) for call in calls):
        return None
    return _mark_reviewed(text, finding.line, "B603")


def _fix_import_subprocess_reviewed(text: str, finding: Finding) -> str | None:
    """Marks `import subprocess` as reviewed (bandit B404); each call stays checked on its own line."""
    tree = _parse(text)
    if _suffix(finding) not in PY_SUFFIXES or tree is None:
        return None
    imports = [
        node
        for node in ast.walk(tree)
        if getattr(node, "lineno", None) == finding.line
        and (
            isinstance(node, ast.Import)
            and any(alias.name.split(".")[0] == "subprocess" for alias in node.names)
            or isinstance(node, ast.ImportFrom)
            and (node.module or "").split(".")[0] == "subprocess"
            and not node.level
        )
    ]
    return _mark_reviewed(text, finding.line, "B404") if imports else None


RECIPES: tuple[Recipe, ...] = (
    Recipe(
        "secret:",
        "Reads the credential from an environment variable instead of the source file.",
        "The program needs that variable set where it runs; the old value is still in version history, so rotate the credential.",
        _fix_secret,
    ),
    Recipe(
        "js:eval",
        "Writes the arithmetic the string held as code (or parses JSON data as JSON), so nothing runs a string.",
        "Only for a literal string of plain arithmetic or JSON; anything else needs a model.",
        _fix_eval,
    ),
    Recipe(
        "js:new-function",
        "Parses the data with JSON.parse instead of compiling it into a function.",
        'Only the `new Function("return " + data)()` form is rewritten; non-JSON input now throws.',
        _fix_new_function,
    ),
    Recipe(
        "js:innerHTML",
        "Writes the value as text (textContent), so markup in it is never interpreted.",
        "Tags written into the string are dropped and any intended formatting is lost.",
        _fix_inner_html,
    ),
    Recipe(
        "js:document.write",
        "Appends the value as a text node after the running script instead of writing HTML.",
        "Only works while the page is parsed (document.currentScript); markup in the string is dropped.",
        _fix_document_write,
    ),
    Recipe(
        "js:sql-concatenation",
        "Sends the values as query parameters (?) instead of splicing them into the SQL.",
        "Assumes a driver with ? placeholders (sqlite3, mysql); PostgreSQL drivers need $1, $2.",
        _fix_sql_concatenation,
    ),
    Recipe(
        "html:inline-event-handler",
        "Moves the inline handler into the page's own script file (the first local "
        "script it loads after the element) as an event listener; a page without one gets a script block at the "
        "end of the body.",
        "A script block at the end of the body is still inline: a Content-Security-Policy with script-src 'self' "
        "blocks it unless it names its hash. The moved handler runs after that script file loads.",
        _fix_inline_handler,
    ),
    Recipe(
        "bandit:B602",
        "Runs the command as an argument list without a shell, so input cannot add commands.",
        "Shell features (globs, variables, ~) no longer expand; a value with spaces is now one argument.",
        _fix_shell_true,
    ),
    Recipe(
        "bandit:B301",
        "Stores and reads the data as JSON instead of pickle, which can run code when loaded.",
        "Only JSON types survive (no sets, bytes or objects); entries pickled earlier no longer load.",
        _fix_pickle,
    ),
    Recipe(
        "bandit:B403",
        "Replaces the pickle module with json throughout the file.",
        "Only JSON types survive (no sets, bytes or objects); entries pickled earlier no longer load.",
        _fix_pickle,
    ),
    Recipe(
        "bandit:B108",
        "Uses the system's temp directory (tempfile.gettempdir()) instead of a fixed, shared /tmp path.",
        "The path now follows TMPDIR; files still land in a shared temp directory, so for secrets prefer "
        "tempfile.mkstemp or tempfile.TemporaryDirectory (private, unpredictable names).",
        _fix_hardcoded_tmp,
    ),
    Recipe(
        "bandit:B607",
        "Starts the program by its absolute path, found with shutil.which on this server when the "
        "fix was made, instead of searching PATH each time it runs.",
        "The absolute path may differ on other machines (the program may live elsewhere or be missing there).",
        _fix_partial_path,
    ),
    Recipe(
        "bandit:B603",
        "Changes no behaviour: it only adds bandit's own `# nosec B603` marker to the line, recording "
        "that this call was reviewed (an argument list, no shell) so bandit stops reporting it.",
        "Bandit no longer reports later changes to this line; re-review it if the command starts taking input from users.",
        _fix_subprocess_reviewed,
    ),
    Recipe(
        "bandit:B404",
        "Changes no behaviour: it only adds bandit's own `# nosec B404` marker to the import line, "
        "recording that using subprocess was reviewed so bandit stops reporting it (each call is still checked "
        "on its own line).",
        "Bandit no longer reports later changes to this line; re-review the file's commands if they start taking "
        "input from users.",
        _fix_import_subprocess_reviewed,
    ),
)


def recipe_for(rule: str) -> Recipe | None:
    """The recipe for a scanner rule (a Recipe is callable: `recipe(text, finding)`), or None when there is none.

    Rules without one need a person or a model.
    """
    for recipe in RECIPES:
        if rule == recipe.rule_prefix or (recipe.rule_prefix.endswith(":") and rule.startswith(recipe.rule_prefix)):
            return recipe
    return None


def propose(file_text: str, finding: Finding, *, path: str | None = None) -> str | None:
    """The offline fix for a finding as a unified diff against `path` (default: the finding's file), or None."""
    recipe = recipe_for(finding.rule)
    if recipe is None:
        return None
    new_text = recipe(file_text, finding)
    if new_text is None or new_text == file_text:
        return None
    return unified_diff(path or finding.file, file_text, new_text)


def propose_files(file_text: str, finding: Finding, *, path: str, read: Callable[[str], str | None]) -> str | None:
    """The offline fix as a unified diff that may also change a file the page loads (an inline handler moved into
    the page's script file); otherwise the same as `propose`."""
    if finding.rule == "html:inline-event-handler":
        moved = move_handler_to_script(file_text, finding, path, read)
        if moved is not None:
            return "".join(unified_diff(name, before, after) for name, (before, after) in moved.items())
    return propose(file_text, finding, path=path)
