"""The Live Code Builder's limits, and the checks of what a user sends (prompts, ids)."""

from __future__ import annotations

from typing import Any

from secdash.services import ids
from secdash.services.errors import Invalid

MAX_PROMPT_CHARS = 4000
MAX_FILES = 30  # files in one project
MAX_FILE_BYTES = 200_000  # one file, UTF-8
MAX_TOTAL_BYTES = 1_000_000  # every file of a project together
MAX_PROJECTS = 50  # a user's projects, saved snapshots included
MAX_LOG_LINES = 2000  # a project's build log keeps the newest lines
MAX_LOG_CHARS = 4000  # one log line
LOG_PAGE = 500  # log lines per read


def parse_prompt(value: Any) -> str:
    """The prompt, trimmed; Invalid when blank, not text, or longer than MAX_PROMPT_CHARS."""
    if value is not None and not isinstance(value, str):
        raise Invalid("prompt must be text")
    prompt = (value or "").strip()
    if not prompt:
        raise Invalid("Prompt is required: describe what to build")
    if len(prompt) > MAX_PROMPT_CHARS:
        raise Invalid(f"Prompt is too long ({len(prompt)} characters; the limit is {MAX_PROMPT_CHARS})")
    return prompt


def parse_id(value: Any, name: str = "projectId") -> int:
    return ids.parse_id(value, name)


def parse_after(value: Any) -> int:
    if value in (None, ""):
        return 0
    text = str(value).strip()
    if not ids.is_digits(text):
        raise Invalid("after must be a log line id (0 or more)")
    return int(text)


def size_text(size: int) -> str:
    return f"{size} B" if size < 1024 else f"{size / 1024:.1f} KB"
