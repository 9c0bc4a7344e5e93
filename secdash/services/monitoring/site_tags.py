"""A site's tags: operator-chosen labels the site list filters by, cleaned one way wherever they come from."""

from __future__ import annotations

import re
from collections.abc import Iterable

from secdash.services.errors import Invalid

MAX_TAGS = 10
MAX_TAG_LENGTH = 32
TAG_PATTERN = re.compile(r"[a-z0-9._:-]+")
ALLOWED = "letters a-z, digits and - _ . :"


def split_tags(text: str) -> list[str]:
    """The tags typed in one field, separated by commas (the add/edit dialog)."""
    return [part for part in (text or "").split(",") if part.strip()]


def clean_tags(tags: Iterable[str]) -> list[str]:
    """Lower-cased, trimmed, unique and sorted; at most MAX_TAGS of at most MAX_TAG_LENGTH characters of [a-z0-9-_.:]
    (Invalid says which tag is wrong and why). Empty entries are dropped."""
    if isinstance(tags, str):
        raise Invalid("tags must be a list of words")
    cleaned: set[str] = set()
    for raw in tags:
        if not isinstance(raw, str):
            raise Invalid("tags must be text")
        tag = raw.strip().lower()
        if not tag:
            continue
        if len(tag) > MAX_TAG_LENGTH:
            raise Invalid(f"tag '{tag[:40]}' is longer than {MAX_TAG_LENGTH} characters")
        if not TAG_PATTERN.fullmatch(tag):
            raise Invalid(f"tag '{tag}' may only hold {ALLOWED}")
        cleaned.add(tag)
    if len(cleaned) > MAX_TAGS:
        raise Invalid(f"at most {MAX_TAGS} tags per site (you gave {len(cleaned)})")
    return sorted(cleaned)
