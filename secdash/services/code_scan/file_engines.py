"""The engines that read one file at a time in-process (in a bounded worker): detect-secrets, bandit and the
template check (output written unescaped by a server-side template: EJS, Handlebars, Pug, Jinja2/Django, Vue...).

Both keep process-wide settings, so a worker runs one file at a time through them (`_engine_lock`).
"""

from __future__ import annotations

import ast
import logging
import re
import threading
from dataclasses import dataclass
from pathlib import Path

_SEVERITY = {"HIGH": "high", "MEDIUM": "medium", "LOW": "low"}
_CONFIDENCE = {"HIGH": "high", "MEDIUM": "medium", "LOW": "low", "UNDEFINED": "low"}
# What detect-secrets' plugins find, as CWE-798 (credentials in code) unless a key says otherwise.
SECRET_CWE = 798
_engine_lock = threading.Lock()
# bandit's hardcoded-password checks quote the string they flagged.
_QUOTED = re.compile(r":\s*'(.*)'\s*$", re.DOTALL)


def is_prose(value: str) -> bool:
    """A "secret" with whitespace in it is a message, a prompt or a label ("Password must be 8 characters",
    "npm password: "), not a credential: generated keys and passwords people type carry no spaces."""
    return any(ch.isspace() for ch in value.strip()) or value.strip().endswith(":")


# Runs of keys a person types when writing a character set out: the alphabet, the keyboard's rows, the digits.
_KEY_RUNS = ("abcdefghijklmnopqrstuvwxyz", "qwertyuiop", "asdfghjkl", "zxcvbnm", "0123456789", "1234567890")
_RUN_LENGTH = 6


def is_character_set(value: str) -> bool:
    """A character set written out (an allow-list such as 'qwertyuiop...1234567890_-'), not a secret: it is long,
    no character in it repeats (a random key of 16+ characters nearly always repeats one) and it holds a run of
    six keys in alphabet or keyboard order. High-entropy detectors read these as keys."""
    text = value.strip()
    if len(text) < 16 or len(set(text)) != len(text):
        return False
    lowered = text.lower()
    return any(run[i : i + _RUN_LENGTH] in lowered for run in _KEY_RUNS for i in range(len(run) - _RUN_LENGTH + 1))


def secrets(path: Path) -> list[tuple[int, str, str, str]]:
    """(line, kind, sha1 of the secret, confidence) for each secret detect-secrets finds (never the secret)."""
    from detect_secrets.core.scan import scan_file as detect  # noqa: PLC0415
    from detect_secrets.settings import default_settings  # noqa: PLC0415

    found = set()
    with _engine_lock, default_settings():
        for secret in detect(str(path)):
            value = secret.secret_value or ""
            if (secret.type == "Secret Keyword" and is_prose(value)) or is_character_set(value):
                continue
            confidence = (
                "medium" if secret.type in ("Secret Keyword", "Base64 High Entropy String", "Hex High Entropy String") else "high"
            )
            found.add((secret.line_number, secret.type, secret.secret_hash, confidence))
    return sorted(found)


def bandit(path: Path) -> list[tuple[int, str, str, str, int | None, str]]:
    """(line, test id, severity, confidence, CWE, message) for each bandit issue in a Python file."""
    from bandit.core import config as bandit_config  # noqa: PLC0415
    from bandit.core import manager as bandit_manager  # noqa: PLC0415

    logging.getLogger("bandit").setLevel(logging.ERROR)
    with _engine_lock:
        manager = bandit_manager.BanditManager(bandit_config.BanditConfig(), "file", quiet=True)
        manager.discover_files([str(path)])
        manager.run_tests()
        issues = manager.get_issue_list()
    found = []
    for issue in issues:
        if issue.test_id in ("B105", "B106", "B107"):  # hardcoded password: a message is not one
            quoted = _QUOTED.search(issue.text)
            if quoted and is_prose(quoted.group(1)):
                continue
        cwe = getattr(getattr(issue, "cwe", None), "id", None) or None
        found.append(
            (
                issue.lineno,
                issue.test_id,
                _SEVERITY.get(str(issue.severity).upper(), "low"),
                _CONFIDENCE.get(str(issue.confidence).upper(), "medium"),
                cwe,
                issue.text,
            )
        )
    return found


def string_literals(code: str, language: str) -> list[str]:
    """The string literals of a line or statement (for telling a message from a credential)."""
    if language == "python":
        try:
            return [
                node.value
                for node in ast.walk(ast.parse(code.strip()))
                if isinstance(node, ast.Constant) and isinstance(node.value, str)
            ]
        except (SyntaxError, ValueError):
            pass
    return [match.group(2) for match in re.finditer(r"""(["'`])((?:\\.|(?!\1).)*)\1""", code)]


# --- templates: output a server-side (or Vue) template writes without escaping ------------------------------------

TEMPLATE_SUFFIXES = {
    ".ejs",
    ".ect",
    ".html",
    ".htm",
    ".hbs",
    ".handlebars",
    ".mustache",
    ".pug",
    ".jade",
    ".vue",
    ".njk",
    ".nunjucks",
    ".jinja",
    ".jinja2",
    ".j2",
    ".twig",
    ".dust",
    ".liquid",
}
TEMPLATE_CWE = 79


@dataclass(frozen=True)
class TemplateCheck:
    rule: str
    pattern: re.Pattern[str]
    message: str
    suffixes: frozenset[str] = frozenset(TEMPLATE_SUFFIXES)


TEMPLATE_CHECKS = (
    TemplateCheck(
        "tpl:ejs-unescaped",
        re.compile(r"<%-(?!\s*include\b)(?!\s*(?:body|content)\s*%>).+?%>"),
        "EJS writes this value without HTML escaping (<%- %>): data in it is cross-site scripting; use <%= %>",
        frozenset({".ejs", ".ect", ".html", ".htm"}),
    ),
    TemplateCheck(
        "tpl:mustache-unescaped",
        re.compile(r"\{\{\{(?!\s*(?:body|content|yield)\s*\}\}\}).+?\}\}\}|\{\{&\s*\w"),
        "Handlebars/Mustache writes this value without HTML escaping ({{{ }}}): data in it is cross-site scripting; use {{ }}",
        frozenset({".hbs", ".handlebars", ".mustache", ".html", ".htm"}),
    ),
    TemplateCheck(
        "tpl:pug-unescaped",
        re.compile(r"!\{.+?\}|^\s*[\w.#-]*!=\s*\S"),
        "Pug writes this value without HTML escaping (!{ } or !=): data in it is cross-site scripting",
        frozenset({".pug", ".jade"}),
    ),
    TemplateCheck(
        "tpl:jinja-safe",
        re.compile(r"\{\{[^}]*\|\s*safe\b[^}]*\}\}"),
        "the template marks this value safe (|safe): it is written without HTML escaping, so data in it is cross-site scripting",
        frozenset({".html", ".htm", ".njk", ".nunjucks", ".jinja", ".jinja2", ".j2", ".twig", ".liquid"}),
    ),
    TemplateCheck(
        "tpl:autoescape-off",
        re.compile(r"\{%-?\s*autoescape\s+(?:false|off)\b"),
        "autoescaping is turned off for this block: every value in it is written without HTML escaping",
        frozenset({".html", ".htm", ".njk", ".nunjucks", ".jinja", ".jinja2", ".j2", ".twig"}),
    ),
    TemplateCheck(
        "tpl:vue-v-html",
        re.compile(r"\bv-html\s*=\s*[\"'][^\"']+[\"']"),
        "v-html writes this value as HTML: data in it is cross-site scripting (use text interpolation or sanitise it)",
        frozenset({".vue", ".html", ".htm"}),
    ),
)


def templates(path: Path) -> list[tuple[int, str, str]]:
    """(line, rule, message) for each place a template writes a value without escaping."""
    suffix = path.suffix.lower()
    checks = [check for check in TEMPLATE_CHECKS if suffix in check.suffixes]
    if not checks:
        return []
    found = []
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return []
    for number, line in enumerate(text.splitlines(), start=1):
        for check in checks:
            if check.pattern.search(line):
                found.append((number, check.rule, check.message))
    return found
