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
import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import PurePosixPath

from secdash.services.code_scan import Finding
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
    return lines, content, line[len(content):]


def _replace_line(lines: list[str], number: int, content: str, ending: str) -> str:
    lines = list(lines)
    lines[number - 1] = content + ending
    return "".join(lines)


def _suffix(finding: Finding) -> str:
    return PurePosixPath(finding.file).suffix.lower()


def _js_parts(expr: str) -> list[tuple[str, str]] | None:
    """A JavaScript `+` chain as ("str", raw literal) / ("expr", source) parts, or None if it cannot be read."""
    parts: list[tuple[str, str]] = []
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
        elif char == "+" and depth == 0 and expr[index + 1:index + 2] not in ("+", "=") and expr[index - 1:index] != "+":
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


def _ensure_import_os(text: str) -> str | None:
    if re.search(r"^import\s+(?:[\w.]+\s*,\s*)*os(?:\.\w+)?\s*(?:,|$|#)", text, re.MULTILINE):
        return text
    try:
        module = ast.parse(text)
    except SyntaxError:
        return None
    lines = split_lines(text)
    ending = "\r\n" if lines and lines[0].endswith("\r\n") else "\n"
    at = 0
    imports = [node for node in module.body if isinstance(node, (ast.Import, ast.ImportFrom))]
    regular = [node for node in imports if not (isinstance(node, ast.ImportFrom) and node.module == "__future__")]
    if regular:
        at = regular[0].lineno - 1
    elif imports:
        at = imports[-1].end_lineno or imports[-1].lineno
    elif module.body and isinstance(module.body[0], ast.Expr) and isinstance(getattr(module.body[0], "value", None),
                                                                             ast.Constant):
        at = module.body[0].end_lineno or 1
    else:
        while at < len(lines) and lines[at].startswith("#"):
            at += 1
    if at >= len(lines) and lines and not lines[-1].endswith("\n"):
        lines[-1] += ending
    lines.insert(at, "import os" + ending)
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
    new_text = _replace_line(lines, finding.line, content[:literal.start()] + lookup + content[literal.end():], ending)
    return _ensure_import_os(new_text) if suffix in PY_SUFFIXES else new_text


# --- JavaScript rules ------------------------------------------------------------------------------------------


def _fix_eval(text: str, finding: Finding) -> str | None:
    found = _line_at(text, finding.line)
    if found is None:
        return None
    lines, content, ending = found
    new, count = re.subn(r"(?<![\w.])eval\s*\(", "JSON.parse(", content)
    return _replace_line(lines, finding.line, new, ending) if count else None


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
    call = re.match(r"\s*\(\s*\)", content[close + 1:])
    argument = content[match.end():close].strip()
    if call is None or not argument:
        return None
    new = content[:match.start()] + f"JSON.parse({argument})" + content[close + 1 + call.end():]
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
    parts = _js_parts(content[match.end():end]) if end is not None else None
    if parts is None:
        return None
    new = content[:match.start()] + ".textContent = " + _strip_markup(parts) + content[end:]
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
    arguments = content[match.end():close]
    parts = _js_parts(arguments) if _statement_end(arguments, 0, ",;") == len(arguments) else None
    if parts is None:
        return None
    node = f"document.createTextNode({_strip_markup(parts)})"
    new = content[:match.start()] + f"document.currentScript.after({node})" + content[close + 1:]
    return _replace_line(lines, finding.line, new, ending)


def _sql_quote_trim(body: str, *, at_end: bool) -> tuple[str, bool]:
    """The literal's text with the SQL quote that wrapped a concatenated value removed (and whether there was one)."""
    for quote in ("\\'", "'", '\\"', '"'):
        if at_end and body.endswith(quote):
            return body[:-len(quote)], True
        if not at_end and body.startswith(quote):
            return body[len(quote):], True
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
    parts = _js_parts(content[start.start():end]) if end is not None else None
    if parts is None or parts[0][0] != "str" or all(kind == "str" for kind, _ in parts):
        return None
    quote = parts[0][1][0]
    sql, params = "", []
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
    before, after = content[:start.start()], content[end:]
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


def _fix_inline_handler(text: str, finding: Finding) -> str | None:
    found = _line_at(text, finding.line)
    if found is None:
        return None
    lines, content, ending = found
    tags = [m for m in re.finditer(r"<([a-zA-Z][\w-]*)([^>]*)>", content)
            if re.search(r"\son[a-z]+\s*=", m.group(2), re.IGNORECASE)]
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
        listeners.append(f"document.getElementById({json.dumps(element_id)}).addEventListener({json.dumps(event)}, "
                         f"function (event) {{ {code.rstrip(';')}; }});")
    body_end = next((index for index in range(len(lines) - 1, -1, -1) if "</body>" in lines[index].lower()), None)
    if body_end is None or body_end < finding.line:
        return None
    lines = list(lines)
    lines[finding.line - 1] = content[:tag.start()] + f"<{tag.group(1)}{attrs}>" + content[tag.end():] + ending
    indent = re.match(r"\s*", lines[body_end]).group(0) + "  "
    lines.insert(body_end, f"{indent}<script>{' '.join(listeners)}</script>{ending}")
    return "".join(lines)


# --- Python (bandit) ---------------------------------------------------------------------------------------


def _text_offset(lines: list[str], lineno: int, col: int) -> int:
    """A string index from ast's (1-based line, UTF-8 byte column)."""
    return sum(len(line) for line in lines[:lineno - 1]) + len(lines[lineno - 1].encode()[:col].decode())


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
    return None if source is None or not any(isinstance(node, t) for t in (ast.Name, ast.Attribute)) else [
        ("expr", source)]


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
    calls = [node for node in ast.walk(module) if isinstance(node, ast.Call) and node.lineno <= finding.line
             <= (node.end_lineno or node.lineno) and node.args
             and any(k.arg == "shell" and isinstance(k.value, ast.Constant) and k.value.value is True
                     for k in node.keywords)]
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
    previous = ([*call.args, *call.keywords[:keyword_index]] or [None])[-1]
    if previous is None:
        return None
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
    if re.search(r"\bpickle\b", re.sub(r"\bpickle\.(?:loads|dumps|load|dump)\b|^import pickle\b", "", text,
                                       flags=re.MULTILINE)):
        return None  # pickle is used some other way (aliases, from-imports, mentions): not a mechanical change
    has_json = re.search(r"^import json\b", text, re.MULTILINE) is not None
    new = re.sub(r"\bpickle\.(loads|dumps|load|dump)\b", r"json.\1", text)
    return re.sub(r"^import pickle[ \t]*(?:#.*)?(\r?\n|$)", "" if has_json else r"import json\1", new,
                  count=1, flags=re.MULTILINE)


RECIPES: tuple[Recipe, ...] = (
    Recipe("secret:", "Reads the credential from an environment variable instead of the source file.",
           "The program needs that variable set where it runs; the old value is still in version history, so "
           "rotate the credential.", _fix_secret),
    Recipe("js:eval", "Parses the string as JSON data instead of running it as code.",
           "Breaks if the string really is code (an expression or function) rather than JSON data.", _fix_eval),
    Recipe("js:new-function", "Parses the data with JSON.parse instead of compiling it into a function.",
           "Only the `new Function(\"return \" + data)()` form is rewritten; non-JSON input now throws.",
           _fix_new_function),
    Recipe("js:innerHTML", "Writes the value as text (textContent), so markup in it is never interpreted.",
           "Tags written into the string are dropped and any intended formatting is lost.", _fix_inner_html),
    Recipe("js:document.write", "Appends the value as a text node after the running script instead of writing HTML.",
           "Only works while the page is parsed (document.currentScript); markup in the string is dropped.",
           _fix_document_write),
    Recipe("js:sql-concatenation", "Sends the values as query parameters (?) instead of splicing them into the SQL.",
           "Assumes a driver with ? placeholders (sqlite3, mysql); PostgreSQL drivers need $1, $2.",
           _fix_sql_concatenation),
    Recipe("html:inline-event-handler", "Moves the inline handler into a script that adds an event listener.",
           "The handler now runs from a script block placed at the end of the body; a strict CSP still needs "
           "that script's hash (or moving it into a .js file).", _fix_inline_handler),
    Recipe("bandit:B602", "Runs the command as an argument list without a shell, so input cannot add commands.",
           "Shell features (globs, variables, ~) no longer expand; a value with spaces is now one argument.",
           _fix_shell_true),
    Recipe("bandit:B301", "Stores and reads the data as JSON instead of pickle, which can run code when loaded.",
           "Only JSON types survive (no sets, bytes or objects); entries pickled earlier no longer load.", _fix_pickle),
    Recipe("bandit:B403", "Replaces the pickle module with json throughout the file.",
           "Only JSON types survive (no sets, bytes or objects); entries pickled earlier no longer load.", _fix_pickle),
)


def recipe_for(rule: str) -> Recipe | None:
    """The recipe for a scanner rule (a Recipe is callable: `recipe(text, finding)`), or None when there is none.

    Rules without one (for example bandit:B404, importing subprocess, which is a reminder rather than a flaw) need
    a person or a model.
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
