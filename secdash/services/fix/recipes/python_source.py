"""Python source as the Python recipes edit it: parse it, find a node's text, splice edits, add an import."""

from __future__ import annotations

import ast
import re

from secdash.services.diff.patch import split_lines


def ensure_import(text: str, module: str) -> str | None:
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


def text_offset(lines: list[str], lineno: int, col: int) -> int:
    """A string index from ast's (1-based line, UTF-8 byte column)."""
    return sum(len(line) for line in lines[: lineno - 1]) + len(lines[lineno - 1].encode()[:col].decode())


LITERAL = re.compile(r"""(?P<prefix>[rRuUfF]{0,2})(?P<q>'''|\"\"\"|'|")(?P<body>.*)(?P=q)""", re.DOTALL)


def parse(text: str) -> ast.Module | None:
    try:
        return ast.parse(text)
    except SyntaxError:
        return None


def segment(lines: list[str], node: ast.expr) -> tuple[int, int]:
    return (text_offset(lines, node.lineno, node.col_offset), text_offset(lines, node.end_lineno, node.end_col_offset))  # type: ignore[arg-type]


def splice(text: str, edits: list[tuple[int, int, str]]) -> str:
    for start, end, replacement in sorted(edits, reverse=True):
        text = text[:start] + replacement + text[end:]
    return text


def same_literal(source: str, expected: ast.expr) -> bool:
    """Whether Python reads `source` as exactly `expected` (a string or f-string), so a rewrite keeps the value."""
    try:
        parsed = ast.parse(source, mode="eval").body
    except SyntaxError:
        return False
    return ast.dump(parsed) == ast.dump(expected)


def call_name(call: ast.Call) -> str:
    func = call.func
    return func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
