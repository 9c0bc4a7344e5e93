"""A site's tags: the one rule of the form, the API and the import.

Operator-chosen labels ("prod", "eu", "client-a"): lower-case, trimmed, unique, sorted; at most MAX_TAGS, each 1 to
MAX_TAG_LENGTH characters of a-z, 0-9 and - _ . : (so a tag needs no quoting in a URL, a CSV cell or a filter).
"""

from __future__ import annotations

import re

from secdash.services.errors import Invalid

MAX_TAGS = 10
MAX_TAG_LENGTH = 32
TAG = re.compile(r"^[a-z0-9\-_.:]+$")
_SEPARATORS = re.compile(r"[;,]")


def clean_tags(value: str | list[str] | None) -> list[str]:
    """The tags given as text ("prod; eu" or "prod,eu") or a list, cleaned; Invalid("tags: ...") names what is wrong.
    Empty entries are skipped; None or "" is no tags."""
    if value is None:
        return []
    if isinstance(value, str):
        items: list[object] = list(_SEPARATORS.split(value))
    elif isinstance(value, list):
        items = list(value)
    else:
        raise Invalid("tags: give a list of texts, or one text separated by ; or ,")
    tags: set[str] = set()
    for item in items:
        if not isinstance(item, str):
            raise Invalid("tags: each tag must be a text")
        tag = item.strip().lower()
        if not tag:
            continue
        if len(tag) > MAX_TAG_LENGTH:
            raise Invalid(f"tags: '{tag[:MAX_TAG_LENGTH]}...' is longer than {MAX_TAG_LENGTH} characters")
        if not TAG.match(tag):
            shown = tag if tag.isprintable() else tag.encode("unicode_escape").decode("ascii")
            raise Invalid(f"tags: '{shown}' may hold only a-z, 0-9 and - _ . :")
        tags.add(tag)
    if len(tags) > MAX_TAGS:
        raise Invalid(f"tags: at most {MAX_TAGS} tags (there are {len(tags)})")
    return sorted(tags)
