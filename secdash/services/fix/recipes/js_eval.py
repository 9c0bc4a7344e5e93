"""The offline recipe for `eval(...)` in JavaScript: replace the call by what it computes, without running strings.

`eval` of a string is replaced by the string's own code only when that code is plain arithmetic (identifiers,
numbers, `+ - * / %`, parentheses, dots for properties): the string is a literal in the call, or a `const`/`let`/
`var` bound to a literal in the same file. Such an expression means the same as code as it did as a string, so the
page computes the same value (the Gem site's appraisal: `eval(formula)` with `formula = "carats * 1200 + clarity *
300"` becomes `(carats * 1200 + clarity * 300)`). A literal holding JSON data becomes `JSON.parse(...)`, and so
does a value read at run time (storage, a response), which is JSON data far more often than code: Fix Mode's
verification loads the page in a browser, so a wrong guess ends "not verified". A literal holding other code
(calls, keywords) has no safe offline rewrite: None, and the fix needs a model.
"""

from __future__ import annotations

import json
import re

_CALL = re.compile(r"(?<![\w.$])eval\s*\(\s*")
_LITERAL = re.compile(r"""(?P<q>["'`])(?P<body>(?:\\.|(?!(?P=q))[^\\])*)(?P=q)""")
_NAME = re.compile(r"[A-Za-z_$][\w$]*")
_ARITHMETIC = re.compile(r"[\w$.\s+\-*/%()]+")
_KEYWORDS = {
    "new",
    "function",
    "return",
    "this",
    "import",
    "await",
    "yield",
    "delete",
    "typeof",
    "void",
    "in",
    "instanceof",
    "class",
    "async",
    "eval",
    "Function",
    "constructor",
    "prototype",
    "__proto__",
}


def _literal_value(text: str) -> str | None:
    """The text of a JavaScript string literal with no escapes or template parts, else None."""
    match = _LITERAL.fullmatch(text.strip())
    if match is None or "\\" in match.group("body") or (match.group("q") == "`" and "${" in match.group("body")):
        return None
    return match.group("body")


def _bound_literal(source: str, name: str) -> str | None:
    """The literal a name is bound to once in the file (`const name = "..."`), else None."""
    bindings = re.findall(rf"\b(?:const|let|var)\s+{re.escape(name)}\s*=\s*([^;\n]+)", source)
    assignments = re.findall(rf"(?<![\w$.]){re.escape(name)}\s*[-+*/%]?=(?!=)", source)
    if len(bindings) != 1 or len(assignments) != 1:
        return None
    return _literal_value(bindings[0])


def _is_arithmetic(code: str) -> bool:
    if not code.strip() or not _ARITHMETIC.fullmatch(code):
        return False
    if any(word in _KEYWORDS for word in _NAME.findall(code)):
        return False
    depth = 0
    for char in code:
        depth += {"(": 1, ")": -1}.get(char, 0)
        if depth < 0:
            return False
    return depth == 0 and not re.search(r"\w\s*\(", code)  # no calls: `f(x)` could do anything


def rewrite_line(source: str, line: str) -> str | None:
    """The line with its one `eval(<argument>)` replaced by what it computes (see the module), or None."""
    calls = list(_CALL.finditer(line))
    if len(calls) != 1:
        return None
    start = calls[0].end()
    depth, end = 1, None
    for index in range(start, len(line)):
        depth += {"(": 1, ")": -1}.get(line[index], 0)
        if depth == 0:
            end = index
            break
    if end is None:
        return None
    argument = line[start:end].strip()
    if not argument:
        return None
    code = _literal_value(argument)
    if (
        code is None
        and _NAME.fullmatch(argument)
        and re.search(rf"\b(?:const|let|var)\s+{re.escape(argument)}\s*=\s*[\"'`]", source)
    ):
        code = _bound_literal(source, argument)
        if code is None:
            return None  # bound to a literal we cannot read safely (escapes, reassigned): no offline rewrite
    if code is None:  # a value read at run time (storage, a response): taken as the JSON data it usually is
        return line[: calls[0].start()] + f"JSON.parse({argument})" + line[end + 1 :]
    if _is_arithmetic(code):
        replacement = f"({' '.join(code.split())})"
    else:
        try:
            json.loads(code)
        except ValueError:
            return None
        replacement = f"JSON.parse({argument})"
    return line[: calls[0].start()] + replacement + line[end + 1 :]
