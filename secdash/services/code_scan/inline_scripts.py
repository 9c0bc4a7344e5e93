"""Inline `<script>` blocks of an HTML page as JavaScript at their own lines and columns (everything else blanked),
so a finding in the shadow file points at the page's own line."""

from __future__ import annotations

from html.parser import HTMLParser


class _Scripts(HTMLParser):
    """The character ranges of inline classic and module scripts."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=False)
        self.ranges: list[tuple[int, int]] = []
        self._start: int | None = None
        self._lines: list[int] = []

    def feed_text(self, text: str) -> None:
        offset, self._lines = 0, []
        for line in text.splitlines(keepends=True):
            self._lines.append(offset)
            offset += len(line)
        self.feed(text)
        self.close()

    def _offset(self) -> int:
        line, column = self.getpos()
        return self._lines[line - 1] + column if line - 1 < len(self._lines) else 0

    def handle_starttag(self, tag, attrs):
        kind = (dict(attrs).get("type") or "").lower()
        if tag == "script" and "src" not in dict(attrs) and kind in ("", "text/javascript", "module", "application/javascript"):
            self._start = self._offset() + len(self.get_starttag_text() or "")

    def handle_endtag(self, tag):
        if tag == "script" and self._start is not None:
            self.ranges.append((self._start, self._offset()))
            self._start = None


def shadow_script(text: str) -> str | None:
    """The page's inline scripts at their own lines and columns, everything else blanked; None without any."""
    parser = _Scripts()
    try:
        parser.feed_text(text)
    except (AssertionError, ValueError):
        return None
    if not parser.ranges:
        return None
    keep = bytearray(len(text))
    for start, end in parser.ranges:
        keep[start:end] = b"\1" * (end - start)
    return "".join(ch if keep[i] or ch in "\r\n" else " " for i, ch in enumerate(text))
