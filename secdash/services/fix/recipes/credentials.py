"""Hard-coded secrets: the literal becomes an environment lookup (Python and JavaScript)."""

from __future__ import annotations

import hashlib
import re

from secdash.services.code_scan import Finding
from secdash.services.fix.recipes.lines import JS_SUFFIXES, PY_SUFFIXES, STRING, line_at, replace_line, suffix_of
from secdash.services.fix.recipes.python_source import ensure_import


def _env_name(identifier: str) -> str:
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", identifier).upper()


def _secret_literal(content: str, finding: Finding) -> re.Match[str] | None:
    literals = [m for m in STRING.finditer(content) if not (m.start() and content[m.start() - 1].isalnum())]
    if finding.code.startswith("secret-sha1:"):
        wanted = finding.code.removeprefix("secret-sha1:")
        for match in literals:
            if hashlib.sha1(match.group("body").encode(), usedforsecurity=False).hexdigest() == wanted:
                return match
        return None
    return literals[0] if len(literals) == 1 else None


def fix_secret(text: str, finding: Finding) -> str | None:
    found = line_at(text, finding.line)
    suffix = suffix_of(finding)
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
    new_text = replace_line(lines, finding.line, content[: literal.start()] + lookup + content[literal.end() :], ending)
    return ensure_import(new_text, "os") if suffix in PY_SUFFIXES else new_text
