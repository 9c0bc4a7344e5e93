"""The HTML artifact task: write one self-contained HTML page for a prompt, or the next version of a page.

The answer is the page as one file (`index.html` in the file protocol of secdash/ai/files.py, or a single
```html fenced block), preceded by one line `Changes: ...` saying what this version changes (the version
history shows it). For an update the current page goes into the prompt as data (fenced, never instructions).
Offline, the builder's templates answer as one inlined page (secdash/ai/artifact_pages.py).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from secdash.ai.base import ChatTurn, LLMError
from secdash.ai.files import file_block
from secdash.ai.tasks.base import Task
from secdash.ai.tasks.build_project import DATA_NOTE, fenced

MAX_PROMPT_CHARS = 4000
MAX_CURRENT_CHARS = 120_000  # the current page in an update prompt
MAX_FEEDBACK_CHARS = 2000
PAGE = "index.html"
CHANGES_PREFIX = "Changes:"

PERSONA = (
    "You are SecDash's HTML Artifacts creator. You write one self-contained HTML page that an administrator "
    "previews in a sandbox (scripts run, but with no network and no access to anything outside the page) and "
    "that SecDash then checks (the HTML parses, inline scripts pass `node --check`, SecDash's security scan "
    "finds nothing)."
)
PAGE_RULES = (
    "Rules for the page:\n"
    "1. One complete HTML document (<!doctype html> to </html>): CSS in one <style> in <head>, JavaScript in "
    "<script> elements at the end of <body>. No external files, no CDN, no web fonts, no remote images, scripts "
    "or stylesheets (there is no network): draw with CSS, inline SVG or canvas.\n"
    "2. It works on a 390 px wide phone and on a desktop; accessible (labels, contrast, headings in order).\n"
    "3. Safe code: no eval or new Function, no innerHTML/outerHTML/insertAdjacentHTML or document.write (build "
    "elements with createElement and set textContent), no inline event handler attributes such as onclick= (use "
    "addEventListener), no secrets, keys or passwords, no fetch or XMLHttpRequest.\n"
    "4. Well-formed HTML: every non-void element closed, in order."
)
OUTPUT = (
    f"Output: first one line `{CHANGES_PREFIX} <what this version is or changes, at most 20 words>`, then the "
    f"whole page as the file `{PAGE}` in the file format (or as one ```html fenced block). Nothing after the page."
)


@dataclass(frozen=True)
class HtmlArtifactTask(Task):
    """Write the page `prompt` asks for; with `current` (the page as it is), its next version. `feedback`: why
    a previous answer was refused."""

    prompt: str
    current: str = ""
    name: str = ""
    feedback: str = ""
    agent_id = "general"
    kind = "html_artifact"
    files = True
    default_file = PAGE

    @property
    def is_update(self) -> bool:
        return bool(self.current)

    def system(self) -> str:
        parts = [PERSONA, PAGE_RULES, OUTPUT]
        if self.is_update:
            parts += [
                "You are changing a page that exists. Keep everything the request does not ask to change; write "
                "the whole new page, complete, never a diff or a placeholder such as '...'.",
                DATA_NOTE.format(what=f'the page "{self.name[:100]}" as it is now'),
                fenced("CURRENT PAGE", self.current[:MAX_CURRENT_CHARS]),
            ]
        return "\n\n".join(parts)

    def turns(self) -> Sequence[ChatTurn]:
        request = self.prompt[:MAX_PROMPT_CHARS]
        ask = f"Change the page: {request}" if self.is_update else f"Create this page: {request}"
        if self.feedback:
            ask += f"\n\nYour previous answer was refused: {self.feedback[:MAX_FEEDBACK_CHARS]}\nFix that in your new answer."
        return (ChatTurn("user", ask),)

    def offline_text(self) -> str:
        from secdash.ai.artifact_pages import create_page, update_page

        if self.is_update:
            note, page = update_page(self.prompt, self.current)
            if page is None:
                raise LLMError("bad_request", note)
            return f"{CHANGES_PREFIX} {note}\n" + file_block(PAGE, page)
        label, page = create_page(self.prompt)
        return f"{CHANGES_PREFIX} Offline template engine: {label.lower()}.\n" + file_block(PAGE, page)
