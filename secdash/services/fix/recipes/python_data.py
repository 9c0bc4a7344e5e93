"""Python's data and files (bandit B301/B403, B108): JSON instead of pickle, the system's temp directory instead of /tmp."""

from __future__ import annotations

import ast
import re

from secdash.services.code_scan import Finding
from secdash.services.diff.patch import split_lines
from secdash.services.fix.recipes.lines import PY_SUFFIXES, suffix_of
from secdash.services.fix.recipes.python_source import LITERAL, ensure_import, parse, same_literal, segment, splice

_PICKLE_CALLS = {"loads", "dumps", "load", "dump"}


def fix_pickle(text: str, finding: Finding) -> str | None:
    """pickle -> json for every call in the file (the import and the calls are fixed together, or not at all)."""
    if suffix_of(finding) not in PY_SUFFIXES:
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


_TMP = "/tmp"  # noqa: S108 - the fixed path the B108 recipe looks for, not one it uses
_TMP_PREFIX = _TMP + "/"


def _tmp_replacement(source: str, node: ast.Constant | ast.JoinedStr) -> str | None:
    """`os.path.join(tempfile.gettempdir(), <the rest>)` for a "/tmp/..." literal, in the literal's own spelling."""
    literal = LITERAL.fullmatch(source)
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
    if not same_literal(rest, expected):
        return None  # implicit concatenation or an unusual spelling: the rest would not read back the same
    return f"os.path.join(tempfile.gettempdir(), {rest})"


def fix_hardcoded_tmp(text: str, finding: Finding) -> str | None:
    """Every "/tmp/..." string literal on the flagged line joins the system's temp directory instead."""
    tree = parse(text)
    if suffix_of(finding) not in PY_SUFFIXES or tree is None:
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
            start, end = segment(lines, node)
            replacement = _tmp_replacement(text[start:end], node)
            if replacement is not None:
                edits.append((start, end, replacement))
    if not edits:
        return None
    new_text = ensure_import(splice(text, edits), "tempfile")
    if new_text is not None and any(replacement.startswith("os.") for _, _, replacement in edits):
        new_text = ensure_import(new_text, "os")
    return new_text if new_text is not None and parse(new_text) is not None else None
