"""What the Live Code Builder's checks report, and the files they read (shared by the checks and their parts)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

CHECKS = ("html", "links", "javascript", "python", "scan")
HTML_SUFFIXES = {".html", ".htm"}
CSS_SUFFIXES = {".css"}
JS_SUFFIXES = {".js", ".mjs", ".cjs"}
PY_SUFFIXES = {".py"}


@dataclass(frozen=True)
class CheckFinding:
    check: str  # "html" | "links" | "javascript" | "python" | "scan"
    level: str  # "error" | "warning"
    file: str  # project-relative path ("" for the project as a whole)
    line: int | None
    message: str  # one line, safe to show

    def __str__(self) -> str:
        """The log line: `index.html:12 references missing file app.js`."""
        where = f"{self.file}:{self.line}" if self.file and self.line else self.file
        return f"{where} {self.message}" if where else self.message


@dataclass(frozen=True)
class CheckReport:
    findings: tuple[CheckFinding, ...]
    counts: dict[str, int] = field(default_factory=dict)  # files checked per check

    @property
    def errors(self) -> int:
        return sum(1 for finding in self.findings if finding.level == "error")

    @property
    def warnings(self) -> int:
        return sum(1 for finding in self.findings if finding.level == "warning")

    @property
    def ok(self) -> bool:
        """No errors (warnings allowed)."""
        return self.errors == 0


@dataclass(frozen=True)
class SourceFile:
    relative: str
    path: Path  # resolved, inside the root
    data: bytes

    @property
    def suffix(self) -> str:
        return PurePosixPath(self.relative).suffix.lower()

    @property
    def text(self) -> str:
        return self.data.decode("utf-8", errors="replace")


@dataclass(frozen=True)
class InlineScript:
    file: str
    line: int  # the HTML line the script's first line is on
    source: str
    module: bool


def shown(text: str, limit: int = 120) -> str:
    """One printable line of at most `limit` characters."""
    text = "".join(char if char.isprintable() else " " for char in text)
    return text if len(text) <= limit else text[: limit - 3] + "..."
