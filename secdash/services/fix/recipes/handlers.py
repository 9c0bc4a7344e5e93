"""HTML inline event handlers: moved into the page's own script file, or a script block at the end of the body."""

from __future__ import annotations

import html
import json
import re
from collections.abc import Callable

from secdash.services.code_scan import Finding
from secdash.services.fix.recipes.lines import line_at

_TAG = re.compile(r"<([a-zA-Z][\w-]*)([^>]*)>")


def _moved_handler(text: str, finding: Finding) -> tuple[list[str], list[str], str, str] | None:
    """(the page's lines with the handler attributes gone, the listener statements, the element's id, the line
    ending) for an inline handler, or None when it cannot be moved safely."""
    found = line_at(text, finding.line)
    if found is None:
        return None
    lines, content, ending = found
    # Only up to the line's last '>': past it no tag closes, and a search from each '<' there would read the rest of
    # the line again (quadratic in a model-written line of unclosed tags; this runs on the server's event loop).
    tags = [
        m for m in _TAG.finditer(content, 0, content.rfind(">") + 1) if re.search(r"\son[a-z]+\s*=", m.group(2), re.IGNORECASE)
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


def fix_inline_handler(text: str, finding: Finding) -> str | None:
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
