"""JavaScript rules: eval and new Function of data, innerHTML and document.write of values, SQL built by concatenation."""

from __future__ import annotations

import re

from secdash.services.code_scan import Finding
from secdash.services.fix.recipes import js_eval
from secdash.services.fix.recipes.lines import STRING, line_at, replace_line


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
    match = STRING.fullmatch(part)
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


def fix_eval(text: str, finding: Finding) -> str | None:
    found = line_at(text, finding.line)
    if found is None:
        return None
    lines, content, ending = found
    new = js_eval.rewrite_line(text, content)
    return replace_line(lines, finding.line, new, ending) if new is not None else None


def fix_new_function(text: str, finding: Finding) -> str | None:
    """Only `new Function("return " + data)()`: the one shape that is a data parser in disguise."""
    found = line_at(text, finding.line)
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
    return replace_line(lines, finding.line, new, ending)


def fix_inner_html(text: str, finding: Finding) -> str | None:
    found = line_at(text, finding.line)
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
    return replace_line(lines, finding.line, new, ending)


def fix_document_write(text: str, finding: Finding) -> str | None:
    found = line_at(text, finding.line)
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
    return replace_line(lines, finding.line, new, ending)


def _sql_quote_trim(body: str, *, at_end: bool) -> tuple[str, bool]:
    """The literal's text with the SQL quote that wrapped a concatenated value removed (and whether there was one)."""
    for quote in ("\\'", "'", '\\"', '"'):
        if at_end and body.endswith(quote):
            return body[: -len(quote)], True
        if not at_end and body.startswith(quote):
            return body[len(quote) :], True
    return body, False


def fix_sql_concatenation(text: str, finding: Finding) -> str | None:
    found = line_at(text, finding.line)
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
        return replace_line(lines, finding.line, f"{before}{query}, {values}{after}", ending)
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
