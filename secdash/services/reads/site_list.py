"""The Dashboard's site list: every site as one compact row, filtered, sorted and paged on the server.

The rows are built once per change of the sites or their problems (read_models.site_list_rows) and every keystroke
runs `filter_sort_page` over them in memory: no query per site, none per keystroke. Pure functions, no database.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from secdash.core.site_status import STATUS_LABELS

PAGE_SIZE = 50
MAX_PAGE_SIZE = 200
CARDS_MAX_SITES = 12  # up to this many sites, every site also shows as a card with its chart
MAX_SEARCH_LENGTH = 200
PAUSED = "paused"  # the status filter of paused sites (their probe status is stale, so they count apart)
STATUS_ORDER = ("critical", "warning", "secure")  # worst first, as the summary reads
# The header grade's letters, best first (MDN HTTP Observatory's scale); a site without a grade sorts last.
GRADES = ("A+", "A", "A-", "B+", "B", "B-", "C+", "C", "C-", "D+", "D", "D-", "F")
GRADE_GROUPS = ("A", "B", "C", "D", "F", "none")  # the grade filter: a letter with its + and -, or no grade yet
SORTS = ("name", "status", "grade", "response", "tls", "checked", "problems")


@dataclasses.dataclass(frozen=True)
class SiteRow:
    """One site as the list shows it (raw values: the page formats them)."""

    id: int
    name: str
    domain: str
    url: str
    status: str  # SiteStatus value: secure, warning, critical
    paused: bool
    grade: str | None
    response_ms: int | None
    tls_days: float | None
    checked_at: str | None  # ISO 8601, UTC (sorts as text)
    open_problems: int
    tags: tuple[str, ...]
    search_text: str  # name, host and URL, lower-cased: what the search box matches

    @property
    def filter_status(self) -> str:
        return PAUSED if self.paused else self.status


@dataclasses.dataclass(frozen=True)
class SiteQuery:
    search: str = ""
    status: str = ""  # "" (all), a SiteStatus value or PAUSED
    grade: str = ""  # "" (all) or one of GRADE_GROUPS
    tag: str = ""
    sort: str = "status"
    descending: bool = False
    page: int = 1
    page_size: int = PAGE_SIZE


@dataclasses.dataclass(frozen=True)
class SitePage:
    rows: list[SiteRow]
    total: int  # the sites matching the query (all pages)
    page: int  # the page shown (clamped to the pages there are)
    pages: int
    first: int  # 1-based position of the first row shown (0 when none match)
    last: int
    matching_ids: tuple[int, ...]  # every matching site, in list order ("select all N matching")


def site_row(site: Mapping[str, Any], open_problems: int = 0) -> SiteRow:
    """A row from a site's public shape (SitePublic's JSON, camelCase)."""
    name, domain, url = str(site["name"]), str(site.get("domain") or ""), str(site.get("url") or "")
    return SiteRow(
        id=int(site["id"]),
        name=name,
        domain=domain,
        url=url,
        status=str(site.get("securityStatus") or "warning"),
        paused=bool(site.get("paused")),
        grade=site.get("grade") or None,
        response_ms=site.get("responseTime"),
        tls_days=site.get("tlsDaysLeft"),
        checked_at=site.get("lastCheckedAt"),
        open_problems=int(open_problems),
        tags=tuple(site.get("tags") or ()),
        search_text=f"{name}\n{domain}\n{url}".lower(),
    )


def site_rows(sites: Iterable[Mapping[str, Any]], open_problems: Mapping[int, int]) -> list[SiteRow]:
    return [site_row(site, open_problems.get(int(site["id"]), 0)) for site in sites]


@dataclasses.dataclass(frozen=True)
class SiteRows:
    """Every site's row with what the list shows above it: built once per change (read_models.site_list_rows)."""

    rows: tuple[SiteRow, ...]
    counts: dict[str, int]
    tags: tuple[str, ...]

    @classmethod
    def of(cls, sites: Iterable[Mapping[str, Any]], open_problems: Mapping[int, int]) -> SiteRows:
        rows = site_rows(sites, open_problems)
        return cls(rows=tuple(rows), counts=status_counts(rows), tags=tuple(all_tags(rows)))


def clean_query(query: SiteQuery) -> SiteQuery:
    """The query with unknown values replaced by the defaults (the browser may send anything)."""
    return SiteQuery(
        search=str(query.search or "")[:MAX_SEARCH_LENGTH],
        status=query.status if query.status in (*STATUS_ORDER, PAUSED) else "",
        grade=query.grade if query.grade in GRADE_GROUPS else "",
        tag=str(query.tag or "").strip().lower()[:64],
        sort=query.sort if query.sort in SORTS else "status",
        descending=bool(query.descending),
        page=max(1, int(query.page or 1)),
        page_size=min(MAX_PAGE_SIZE, max(1, int(query.page_size or PAGE_SIZE))),
    )


def _grade_group(grade: str | None) -> str:
    return grade[0] if grade else "none"


_STATUS_RANK = {status: rank for rank, status in enumerate((*STATUS_ORDER, PAUSED))}
_GRADE_RANK = {grade: rank for rank, grade in enumerate(GRADES)}


def _sort_value(row: SiteRow, sort: str) -> Any:
    """The row's value for a sort (None: it has none and goes last, whichever the direction)."""
    if sort == "status":
        return _STATUS_RANK.get(row.filter_status, 1)
    if sort == "grade":
        return _GRADE_RANK.get(row.grade or "", len(GRADES)) if row.grade else None
    if sort == "response":
        return row.response_ms
    if sort == "tls":
        return row.tls_days
    if sort == "checked":
        return row.checked_at
    if sort == "problems":
        return row.open_problems
    return row.name.casefold()


def matches(row: SiteRow, query: SiteQuery, terms: Sequence[str]) -> bool:
    if query.status and row.filter_status != query.status:
        return False
    if query.grade and _grade_group(row.grade) != query.grade:
        return False
    if query.tag and query.tag not in row.tags:
        return False
    return all(term in row.search_text for term in terms)


def filter_sort_page(rows: Sequence[SiteRow], query: SiteQuery) -> SitePage:
    """The sites matching the query's search (every word, in the name, host or URL) and filters, sorted by its column
    (ties by name), cut to its page (a page past the end shows the last one)."""
    query = clean_query(query)
    terms = query.search.lower().split()
    found = [row for row in rows if matches(row, query, terms)]
    found.sort(key=lambda row: (row.name.casefold(), row.id))
    valued = [row for row in found if _sort_value(row, query.sort) is not None]
    unvalued = [row for row in found if _sort_value(row, query.sort) is None]
    valued.sort(key=lambda row: _sort_value(row, query.sort), reverse=query.descending)  # stable: ties keep name order
    ordered = valued + unvalued
    total = len(ordered)
    pages = max(1, -(-total // query.page_size))
    page = min(query.page, pages)
    start = (page - 1) * query.page_size
    shown = ordered[start : start + query.page_size]
    return SitePage(
        rows=shown,
        total=total,
        page=page,
        pages=pages,
        first=start + 1 if shown else 0,
        last=start + len(shown),
        matching_ids=tuple(row.id for row in ordered),
    )


def status_counts(rows: Iterable[SiteRow]) -> dict[str, int]:
    """How many sites are in each status (worst first), paused ones apart."""
    counts = dict.fromkeys((*STATUS_ORDER, PAUSED), 0)
    for row in rows:
        counts[row.filter_status] = counts.get(row.filter_status, 0) + 1
    return counts


def status_summary(counts: Mapping[str, int]) -> list[tuple[str, str, int]]:
    """The summary line's parts, (filter, label, count): "3 ALERT · 12 CHECKING · 985 SECURE", then "N PAUSED" when
    any are paused."""
    parts = [(status, STATUS_LABELS[status], counts.get(status, 0)) for status in STATUS_ORDER]
    if counts.get(PAUSED):
        parts.append((PAUSED, "PAUSED", counts[PAUSED]))
    return parts


def all_tags(rows: Iterable[SiteRow]) -> list[str]:
    """Every tag in use, sorted (the tag filter's choices)."""
    return sorted({tag for row in rows for tag in row.tags})
