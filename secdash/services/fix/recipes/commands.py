"""Python's commands (bandit B602, B607, B603, B404): an argument list instead of a shell, a program by its
absolute path, and bandit's own reviewed marker on calls that need no change."""

from __future__ import annotations

import ast
import io
import json
import os
import re
import shutil
import tokenize

from secdash.services.code_scan import Finding
from secdash.services.diff.patch import split_lines
from secdash.services.fix.recipes.lines import PY_SUFFIXES, line_at, replace_line, suffix_of
from secdash.services.fix.recipes.python_source import LITERAL, call_name, parse, same_literal, segment, splice, text_offset

_SHELL_META = set("|&;<>()$`*?[]{}~!#\"'\\\n")


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


def fix_shell_true(text: str, finding: Finding) -> str | None:
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
    cut_from = text_offset(lines, previous.end_lineno, previous.end_col_offset)  # type: ignore[arg-type]
    cut_to = text_offset(lines, keyword.end_lineno, keyword.end_col_offset)  # type: ignore[arg-type]
    first = call.args[0]
    arg_from = text_offset(lines, first.lineno, first.col_offset)
    arg_to = text_offset(lines, first.end_lineno, first.end_col_offset)  # type: ignore[arg-type]
    if cut_from < arg_to:
        return None
    return text[:arg_from] + replacement + text[arg_to:cut_from] + text[cut_to:]


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


def _absolute_program(source: str, value: str, whole: bool) -> str | None:
    """The literal naming a program (the whole string, or its first word when `whole` is False) rewritten to the
    program's absolute path on this server, or None when it is not a bare name or PATH has no such program."""
    literal = LITERAL.fullmatch(source)
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
    return new if same_literal(new, ast.Constant(value=found + value[len(name) :])) else None


def fix_partial_path(text: str, finding: Finding) -> str | None:
    """The program that starts the command (an argument list's first item, or a command string's first word)
    becomes the absolute path `shutil.which` finds for it on this server now."""
    tree = parse(text)
    if suffix_of(finding) not in PY_SUFFIXES or tree is None:
        return None
    lines = split_lines(text)
    calls = [
        node
        for node in ast.walk(tree)
        if isinstance(node, ast.Call) and node.lineno == finding.line and node.args and call_name(node) in _PROCESS_CALLS
    ]
    edits = []
    for call in calls:
        program, whole = call.args[0], False
        if isinstance(program, ast.List) and program.elts:
            program, whole = program.elts[0], True
        if not (isinstance(program, ast.Constant) and isinstance(program.value, str)):
            continue
        start, end = segment(lines, program)
        replacement = _absolute_program(text[start:end], program.value, whole)
        if replacement is None:
            return None
        edits.append((start, end, replacement))
    return splice(text, edits) if edits else None


_NOSEC = re.compile(r"#\s*nosec:?\s*(?P<tests>\w+(?:\s*,\s*\w+)*)?")  # as bandit reads it (its NOSEC_COMMENT)


def _mark_reviewed(text: str, number: int, test_id: str) -> str | None:
    """The line with bandit's `# nosec <test>` marker added (after any comment, or into the line's nosec list).

    Only a comment changes: the rewrite is refused unless the file's syntax tree stays exactly the same.
    """
    found = line_at(text, number)
    tree = parse(text)
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
    new_text = replace_line(lines, number, new, ending)
    new_tree = parse(new_text)
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


def fix_subprocess_reviewed(text: str, finding: Finding) -> str | None:
    """Marks a call that passes an argument list without a shell as reviewed (bandit B603)."""
    tree = parse(text)
    if suffix_of(finding) not in PY_SUFFIXES or tree is None:
        return None
    calls = [
        node
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and node.args
        and call_name(node) in _PROCESS_CALLS
        and (node.lineno == finding.line or any(k.arg == "shell" and k.value.lineno == finding.line for k in node.keywords))
    ]
    if not calls or any(_has_shell(call) or not isinstance(call.args[0], (ast.List, ast.Tuple)) for call in calls):
        return None
    return _mark_reviewed(text, finding.line, "B603")


def fix_import_subprocess_reviewed(text: str, finding: Finding) -> str | None:
    """Marks `import subprocess` as reviewed (bandit B404); each call stays checked on its own line."""
    tree = parse(text)
    if suffix_of(finding) not in PY_SUFFIXES or tree is None:
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
