"""The site list's view rows: pure functions from the list's rows (services/reads/site_list.py) to the text shown."""

from __future__ import annotations

import dataclasses
from datetime import datetime

from secdash.core.site_status import STATUS_LABELS
from secdash.services.reads.site_list import PAUSED, SitePage, SiteRow
from secdash.state.dashboard_views import time_label

COLUMNS: tuple[tuple[str, str], ...] = (  # (sort key, header): the list's sortable columns, in order
    ("name", "Site"),
    ("status", "Status"),
    ("grade", "Grade"),
    ("response", "Response"),
    ("tls", "TLS"),
    ("checked", "Last check"),
    ("problems", "Problems"),
)


@dataclasses.dataclass
class SiteListRowView:
    id: int = 0
    name: str = ""
    domain: str = ""
    status: str = "warning"  # secure, warning, critical, or paused
    status_label: str = "CHECKING"
    grade: str = "-"
    response: str = "-"
    tls: str = "-"
    checked: str = "never"
    problems: str = "0"
    tags: list[str] = dataclasses.field(default_factory=list)
    selected: bool = False


@dataclasses.dataclass
class SummaryPartView:
    status: str = ""
    label: str = ""
    count: str = "0"
    active: bool = False


@dataclasses.dataclass
class ColumnView:
    key: str = ""
    label: str = ""
    aria_sort: str = "none"  # ascending, descending, none
    arrow: str = ""


def _checked(iso: str | None) -> str:
    if not iso:
        return "never"
    return time_label(datetime.fromisoformat(iso.replace("Z", "+00:00")), "%b %d, %H:%M:%S")


def _tls(row: SiteRow) -> str:
    if row.tls_days is None:
        return "n/a" if row.url.startswith("http:") else "-"
    return "expired" if row.tls_days < 0 else f"{row.tls_days:.1f} d"


def list_row_view(row: SiteRow, selected: bool = False) -> SiteListRowView:
    return SiteListRowView(
        id=row.id,
        name=row.name,
        domain=row.domain,
        status=PAUSED if row.paused else row.status,
        status_label="PAUSED" if row.paused else STATUS_LABELS.get(row.status, "CHECKING"),
        grade=row.grade or "-",
        response=f"{row.response_ms:,} ms" if row.response_ms is not None else "-",
        tls=_tls(row),
        checked=_checked(row.checked_at),
        problems=f"{row.open_problems:,}",
        tags=list(row.tags),
        selected=selected,
    )


def range_text(page: SitePage) -> str:
    """ "1–50 of 1,000" ("0 of 0" when nothing matches)."""
    if not page.total:
        return "0 of 0"
    return f"{page.first:,}–{page.last:,} of {page.total:,}"


def summary_views(parts: list[tuple[str, str, int]], active: str) -> list[SummaryPartView]:
    return [SummaryPartView(status=s, label=label, count=f"{count:,}", active=s == active) for s, label, count in parts]


def column_views(sort: str, descending: bool) -> list[ColumnView]:
    return [
        ColumnView(
            key=key,
            label=label,
            aria_sort=("descending" if descending else "ascending") if key == sort else "none",
            arrow=("▼" if descending else "▲") if key == sort else "",
        )
        for key, label in COLUMNS
    ]


def bulk_outcome_text(verb: str, changed: int, unchanged: int, missing: int) -> str:
    """A bulk operation's outcome in words: "12 sites paused; 3 were already paused; 1 no longer exists"."""
    parts = [f"{changed:,} site{'s' if changed != 1 else ''} {verb}"]
    if unchanged:
        parts.append(f"{unchanged:,} {'were' if unchanged != 1 else 'was'} already {verb}")
    if missing:
        parts.append(f"{missing:,} no longer exist{'s' if missing == 1 else ''}")
    return "; ".join(parts)
