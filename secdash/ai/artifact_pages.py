"""The offline engine's HTML artifacts: the builder's project templates made into one self-contained page.

A template's project (index.html, style.css, app.js) becomes a single document: the stylesheet goes inline in
<head>, the scripts inline at the end of <body> (they ran deferred), and links to index.html point at the page's
own top. The Python API template is not a page, so prompts that pick it get the landing page. Updates use the
builder's offline edits (title, theme, footer, section, button text) on the page.
"""

from __future__ import annotations

import re

from secdash.ai.project_templates import BY_KEY, pick_template
from secdash.ai.project_templates.edits import continue_project

PAGE = "index.html"
_LINK = re.compile(r'[ \t]*<link rel="stylesheet" href="([^"]+)">\n?')
_SCRIPT = re.compile(r'[ \t]*<script src="([^"]+)" defer></script>\n?')


def _script_text(source: str) -> str:
    """Script text that cannot end its <script> element early."""
    return source.replace("</", "<\\/")


def inline_page(files: dict[str, str]) -> str:
    """The project's index.html with its local stylesheets and scripts inlined."""
    page = files[PAGE]
    scripts: list[str] = []

    def style(match: re.Match[str]) -> str:
        css = files.get(match.group(1))
        return match.group(0) if css is None else f"  <style>\n{css.strip()}\n  </style>\n"

    def script(match: re.Match[str]) -> str:
        source = files.get(match.group(1))
        if source is None:
            return match.group(0)
        scripts.append(f"  <script>\n{_script_text(source.strip())}\n  </script>\n")
        return ""

    page = _SCRIPT.sub(script, _LINK.sub(style, page))
    page = page.replace('href="index.html"', 'href="#"')
    if scripts:
        page = re.sub(r"(?i)</body>", lambda m: "".join(scripts) + m.group(0), page, count=1)
    return page


def create_page(prompt: str) -> tuple[str, str]:
    """(label of the template used, the page) for a prompt."""
    template = pick_template(prompt)
    if template.key == "api":
        template = BY_KEY["landing"]
    _, files = template.build(prompt)
    return template.label, inline_page(files)


def update_page(prompt: str, html: str) -> tuple[str, str | None]:
    """(what was changed or could not be, the new page or None when nothing changed)."""
    note, changed = continue_project(prompt, {PAGE: html})
    return note, changed.get(PAGE)
