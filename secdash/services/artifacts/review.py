"""SecDash's checks over one version's HTML, before anyone previews or downloads it: the builder's checks
(HTML structure, local references, `node --check` of the inline scripts, the code scan: inline secrets, eval,
innerHTML with data...) on the page written alone to a private temporary directory. Nothing in it is executed.
"""

from __future__ import annotations

import asyncio
import tempfile
from pathlib import Path
from typing import Any

from secdash.core.config import get_settings
from secdash.core.files import make_private_dir
from secdash.services.builder import checks

PAGE = "index.html"


def _write(folder: Path, html: str) -> None:
    (folder / PAGE).write_text(html, encoding="utf-8")


async def review_html(html: str, *, owner: int | None = None) -> list[dict[str, Any]]:
    """The findings, as stored on the version: [{check, level, line, message}], errors first."""
    base = get_settings().scratch_dir
    await asyncio.to_thread(make_private_dir, base)
    with tempfile.TemporaryDirectory(prefix="artifact-", dir=base) as folder:
        await asyncio.to_thread(_write, Path(folder), html)
        report = await checks.run_checks(Path(folder), [PAGE], owner=owner)
    rows = [
        {"check": finding.check, "level": finding.level, "line": finding.line, "message": finding.message}
        for finding in report.findings
    ]
    return sorted(rows, key=lambda row: (row["level"] != "error", row["line"] or 0))
