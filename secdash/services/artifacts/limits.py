"""The HTML artifacts' limits, and the checks of what a user sends (prompts, ids, versions, hand-edited HTML)."""

from __future__ import annotations

from typing import Any

from secdash.services import ids
from secdash.services.errors import Invalid

MAX_PROMPT_CHARS = 4000
MAX_HTML_BYTES = 500_000  # one version's HTML, UTF-8
MAX_ARTIFACTS = 50  # a user's artifacts
MAX_VERSIONS = 200  # versions of one artifact
MAX_CHANGES_CHARS = 300  # a version's change note
NAME_CHARS = 60


def size_text(size: int) -> str:
    return f"{size} B" if size < 1024 else f"{size / 1024:.1f} KB"


def parse_prompt(value: Any) -> str:
    """The prompt, trimmed; Invalid when blank, not text, or longer than MAX_PROMPT_CHARS."""
    if value is not None and not isinstance(value, str):
        raise Invalid("prompt must be text")
    prompt = (value or "").strip()
    if not prompt:
        raise Invalid("Prompt is required: describe the page to create or the change to make")
    if len(prompt) > MAX_PROMPT_CHARS:
        raise Invalid(f"Prompt is too long ({len(prompt)} characters; the limit is {MAX_PROMPT_CHARS})")
    return prompt


def parse_html(value: Any) -> str:
    """Hand-edited HTML: text, not blank, at most MAX_HTML_BYTES."""
    if not isinstance(value, str):
        raise Invalid("htmlContent must be text")
    if not value.strip():
        raise Invalid("htmlContent is empty: a version needs some HTML")
    size = len(value.encode("utf-8", errors="replace"))
    if size > MAX_HTML_BYTES:
        # In bytes: rounded to KB, a page a few bytes over would read "488.3 KB; the limit is 488.3 KB".
        raise Invalid(f"The HTML is too large ({size} bytes; the limit is {MAX_HTML_BYTES} bytes)")
    return value


def parse_note(value: Any) -> str:
    if value is None:
        return ""
    if not isinstance(value, str):
        raise Invalid("changes must be text")
    note = " ".join(value.split())
    if len(note) > MAX_CHANGES_CHARS:
        raise Invalid(f"changes is too long ({len(note)} characters; the limit is {MAX_CHANGES_CHARS})")
    return note


def parse_id(value: Any, name: str = "artifactId") -> int:
    return ids.parse_id(value, name)


def parse_version(value: Any, name: str = "version") -> int:
    """A version number (1 or more)."""
    if isinstance(value, bool):
        raise Invalid(f"{name} must be a version number (1 or more)")
    text = str(value).strip() if value is not None else ""
    if not ids.is_digits(text, 6) or int(text) < 1:
        raise Invalid(f"{name} must be a version number (1 or more)")
    return int(text)
