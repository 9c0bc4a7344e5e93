"""A small rule set for JavaScript and HTML: the patterns behind most client-side injections.

Every pattern runs in linear time in the line's length (no nested or overlapping unbounded repeats; a tag's
attributes are read only up to the next `<` or `>`), so one long hostile line costs its length, not its square."""

from __future__ import annotations

import re
from dataclasses import dataclass

WEB_SUFFIXES = {".js", ".mjs", ".cjs", ".jsx", ".ts", ".tsx", ".html", ".htm"}
HTML_SUFFIXES = {".html", ".htm"}
_SQL = r"(?:SELECT|INSERT|UPDATE|DELETE)\b"


@dataclass(frozen=True)
class WebRule:
    rule: str
    severity: str
    message: str
    pattern: re.Pattern[str]
    html_only: bool = False


RULES = (
    WebRule("js:eval", "high", "eval() runs strings as code", re.compile(r"(?<![\w.])eval\s*\(")),
    WebRule("js:new-function", "high", "new Function() runs strings as code", re.compile(r"\bnew\s+Function\s*\(")),
    WebRule("js:sql-concatenation", "high", "SQL built by string concatenation (injection risk)",
            # In a template literal: an SQL keyword, then a `${` before the literal ends. Atomic: when no `${` follows
            # the first keyword, none follows a later one either, so a literal full of keywords is read once.
            re.compile(rf""""\s*{_SQL}[^"\n]*"\s*\+|'\s*{_SQL}[^'\n]*'\s*\+|`(?>[^`]*?{_SQL}[^`$]*+(?:\$(?!\{{)[^`$]*+)*+)\$\{{""",
                       re.IGNORECASE)),
    WebRule("js:innerHTML", "medium", "HTML assigned from a string (XSS risk)",
            re.compile(r"\.(?:innerHTML|outerHTML)\s*\+?=|\binsertAdjacentHTML\s*\(")),
    WebRule("js:document.write", "medium", "document.write() writes unescaped HTML",
            re.compile(r"\bdocument\.write(?:ln)?\s*\(")),
    WebRule("html:inline-event-handler", "low", "Inline event handler attribute (blocks a strict CSP)",
            re.compile(r"<[a-zA-Z][^<>]*?\son[a-z]++\s*+=", re.IGNORECASE), html_only=True),
)


def scan_web_source(text: str, *, is_html: bool, only_high: bool) -> list[tuple[int, WebRule]]:
    """(line, rule) for every match, line by line."""
    hits = []
    for number, line in enumerate(text.splitlines(), start=1):
        for rule in RULES:
            if (rule.html_only and not is_html) or (only_high and rule.severity != "high"):
                continue
            if rule.pattern.search(line):
                hits.append((number, rule))
    return hits
