"""A site's tags: the one rule of the form, the API and the import.

Operator-chosen labels ("prod", "eu", "client-a") the site list filters by: lower-case, trimmed, unique, sorted; at most
MAX_TAGS, each 1 to MAX_TAG_LENGTH characters of a-z, 0-9 and - _ . : (so a tag needs no quoting in a URL, a CSV cell or
a filter).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from secdash.services.errors import Invalid

MAX_TAGS = 10
MAX_TAG_LENGTH = 32
TAG_PATTERN = re.compile(r"[a-z0-9._:-]+")
ALLOWED = "letters a-z, digits and - _ . :"
_SEPARATORS = re.compile(r"[;,]")


def split_tags(text: str) -> list[str]:
    """The tags typed in one field, separated by commas or semicolons (the add/edit dialog, a CSV cell)."""
    return [part for part in _SEPARATORS.split(text or "") if part.strip()]


def clean_tags(value: str | Iterable[str] | None) -> list[str]:
    """The tags given as one text ("prod; eu" or "prod,eu") or a list, cleaned; Invalid("tags: ...") says which tag is
    wrong and why. Empty entries are dropped; None or "" is no tags."""
    if value is None:
        return []
    if isinstance(value, str):
        items: list[object] = list(split_tags(value))
    elif isinstance(value, list | tuple | set):
        items = list(value)
    else:
        raise Invalid("tags: give a list of texts, or one text separated by ; or ,")
    cleaned: set[str] = set()
    for item in items:
        if not isinstance(item, str):
            raise Invalid("tags: each tag must be a text")
        tag = item.strip().lower()
        if not tag:
            continue
        if len(tag) > MAX_TAG_LENGTH:
            raise Invalid(f"tags: '{tag[:MAX_TAG_LENGTH]}...' is longer than {MAX_TAG_LENGTH} characters")
        if not TAG_PATTERN.fullmatch(tag):
            shown = tag if tag.isprintable() else tag.encode("unicode_escape").decode("ascii")
            raise Invalid(f"tags: '{shown}' may only hold {ALLOWED}")
        cleaned.add(tag)
    if len(cleaned) > MAX_TAGS:
        raise Invalid(f"tags: at most {MAX_TAGS} tags per site (there are {len(cleaned)})")
    return sorted(cleaned)
