"""Importing many sites from a CSV or JSON file (admins only), with a report of every row: added, or refused and why.

The columns (CSV header) or keys (JSON objects) are those of the export (site_export.py): name, url, and optionally
allowPrivate, tags (";" or "," separated in CSV, a list in JSON), capacityRpm and signupRoute. Each row passes the
single-site form's rules (sites.clean_name_and_url, site_tags.clean_tags, site_settings.clean, and the DNS check
sites.check_target), with the form's messages. A row whose URL is already monitored, or repeats an earlier row's, is
refused; so are rows past sites.MAX_SITES.

A file that cannot be read as a whole (too large, not UTF-8, bad CSV or JSON, no header) is refused with one message
and nothing is created. The DNS checks run concurrently (RESOLVE_CONCURRENCY at a time, one lookup per host) within a
total budget; the rows then found good are created in one transaction with one audit entry. A dry run checks the
same and creates nothing.

Row numbers: in a CSV file the spreadsheet's row (the header is row 1, so the first site is row 2); in a JSON file the
site's position in the list (1 for the first).
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, Literal
from urllib.parse import urlsplit

from sqlmodel import select
from sqlmodel.ext.asyncio.session import AsyncSession

from secdash.core.unit import commit, end_read, mark_changed
from secdash.models import LogCategory, Site, UserPublic, utcnow
from secdash.services import audit
from secdash.services.errors import Invalid
from secdash.services.identity.permissions import require_admin
from secdash.services.monitoring import site_tags, sites
from secdash.services.monitoring.site_import_file import (
    COLUMNS,
    FORMULA_STARTS,
    MAX_FILE_BYTES,
    MAX_ROWS,
    Kind,
    RawRow,
    parse_file,
)
from secdash.services.traffic import site_settings
from secdash.services.traffic.site_settings import TrafficSettings

log = logging.getLogger(__name__)
__all__ = ["COLUMNS", "FORMULA_STARTS", "MAX_FILE_BYTES", "MAX_ROWS", "ImportReport", "RawRow", "import_sites", "parse_file"]

MAX_CELL_CHARS = 4096
RESOLVE_CONCURRENCY = 32
RESOLVE_BUDGET_SECONDS = 60.0
Result = Literal["added", "ready", "refused"]
Check = Callable[..., Awaitable[None]]


@dataclass(frozen=True)
class Candidate:
    """A row that passed every rule but the DNS check, the duplicates and the cap."""

    number: int
    name: str
    url: str
    allow_private: bool
    tags: list[str]
    traffic: TrafficSettings


@dataclass(frozen=True)
class RowResult:
    row: int
    name: str
    url: str
    result: Result
    reason: str | None = None
    site_id: int | None = None


@dataclass(frozen=True)
class ImportReport:
    dry_run: bool
    rows: list[RowResult] = field(default_factory=list)

    @property
    def added(self) -> int:
        return sum(1 for row in self.rows if row.result != "refused")

    @property
    def refused(self) -> int:
        return sum(1 for row in self.rows if row.result == "refused")

    @property
    def message(self) -> str:
        if self.dry_run:
            return f"{self.added} {_sites(self.added)} ready to import, {self.refused} refused (nothing created yet)"
        return f"Sites imported: {self.added} added, {self.refused} refused"


def _sites(count: int) -> str:
    return "site" if count == 1 else "sites"


# --- checking a row (pure) ---


def check_row(row: RawRow) -> Candidate:
    """The row's site as the single-site form would save it; Invalid with the form's message otherwise."""
    if row.problem:
        raise Invalid(row.problem)
    values = row.values
    for column, value in values.items():
        if isinstance(value, str) and len(value) > MAX_CELL_CHARS:
            raise Invalid(f"{column}: at most {MAX_CELL_CHARS:,} characters in a cell")
    name, url = values.get("name"), values.get("url")
    if name is not None and not isinstance(name, str):
        raise Invalid("name must be a text")
    if url is not None and not isinstance(url, str):
        raise Invalid("url must be a text")
    name, url = sites.clean_name_and_url(name or "", url or "")
    allow_private = _boolean(values.get("allowPrivate"))
    tags = site_tags.clean_tags(_text_or_none(values.get("tags")))
    traffic = site_settings.clean(_whole_number(values.get("capacityRpm")), _text_or_none(values.get("signupRoute")))
    return Candidate(row.number, name, url, allow_private, tags, traffic)


def _text_or_none(value: Any) -> Any:
    return None if isinstance(value, str) and not value.strip() else value


def _boolean(value: Any) -> bool:
    if value is None or isinstance(value, bool):
        return bool(value)
    if isinstance(value, str) and value.strip().lower() in ("", "true", "false", "yes", "no", "1", "0"):
        return value.strip().lower() in ("true", "yes", "1")
    raise Invalid("allowPrivate must be true or false")


def _whole_number(value: Any) -> Any:
    """CSV's digits and JSON's 5.0 as the integer; anything else as given, for site_settings.clean to refuse."""
    if isinstance(value, str):
        text = value.strip().replace("_", "")
        return None if not text else int(text) if text.isdigit() and len(text) < 12 else value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


def url_key(url: str) -> str:
    """Two spellings of one URL (the host's case) compare equal."""
    parts = urlsplit(url)
    return parts._replace(netloc=parts.netloc.lower()).geturl()


def plan(rows: Iterable[RawRow], existing: dict[str, str]) -> tuple[dict[int, RowResult], list[Candidate]]:
    """Each row checked (no DNS): the refused ones' results, and the candidates in row order. `existing` maps the
    url_key of every monitored site to its name."""
    refused: dict[int, RowResult] = {}
    candidates: list[Candidate] = []
    first_row: dict[str, int] = {}
    for row in rows:
        shown_name, shown_url = _shown(row.values.get("name")), _shown(row.values.get("url"))
        try:
            candidate = check_row(row)
        except Invalid as exc:
            refused[row.number] = RowResult(row.number, shown_name, shown_url, "refused", exc.message)
            continue
        key = url_key(candidate.url)
        reason = None
        if key in existing:
            reason = f"already monitored as {existing[key]}"
        elif key in first_row:
            reason = f"the same URL as row {first_row[key]}"
        if reason:
            refused[row.number] = RowResult(row.number, candidate.name, candidate.url, "refused", reason)
            continue
        first_row[key] = row.number
        candidates.append(candidate)
    return refused, candidates


def _shown(value: Any) -> str:
    text = value if isinstance(value, str) else "" if value is None else json.dumps(value)[:200]
    return text.strip()[:200]


# --- the DNS checks: concurrent, one per host, within a budget ---


@dataclass(frozen=True)
class Checked:
    """What the DNS checks found: a reason for each refused row (None: good); rows missing were not checked."""

    reasons: dict[int, str | None]
    out_of_time: bool


def _host_key(candidate: Candidate) -> tuple[str, int, bool]:
    parts = urlsplit(candidate.url)
    port = parts.port or (443 if parts.scheme == "https" else 80)
    return (parts.hostname or "", port, candidate.allow_private)


async def check_targets(
    candidates: list[Candidate],
    room: int,
    *,
    check: Check = sites.check_target,
    concurrency: int = RESOLVE_CONCURRENCY,
    budget: float = RESOLVE_BUDGET_SECONDS,
) -> Checked:
    """Resolve the candidates' hosts, at most `concurrency` at a time, in row order, and stop starting new ones once
    `room` rows passed (or could pass: those in flight) or `budget` seconds went by."""
    reasons: dict[int, str | None] = {}
    lookups: dict[tuple[str, int, bool], asyncio.Task[None]] = {}
    queue = iter(candidates)
    passed = in_flight = 0

    async def one(candidate: Candidate) -> str | None:
        key = _host_key(candidate)
        if key not in lookups:
            lookups[key] = asyncio.ensure_future(check(candidate.url, allow_private=candidate.allow_private))
        try:
            await asyncio.shield(lookups[key])
        except Invalid as exc:
            return exc.message
        except Exception:
            log.exception("import: checking %s failed", candidate.url)
            return "url: could not be checked; try again"
        return None

    async def worker() -> None:
        nonlocal passed, in_flight
        while passed + in_flight < room:
            candidate = next(queue, None)
            if candidate is None:
                return
            in_flight += 1
            try:
                reason = await one(candidate)
            finally:
                in_flight -= 1
            reasons[candidate.number] = reason
            passed += reason is None

    workers = [asyncio.ensure_future(worker()) for _ in range(max(0, min(concurrency, len(candidates))))]
    out_of_time = False
    if workers:
        _, pending = await asyncio.wait(workers, timeout=budget)
        out_of_time = bool(pending)
        for task in [*pending, *lookups.values()]:
            task.cancel()
        await asyncio.gather(*pending, *lookups.values(), return_exceptions=True)
    return Checked(reasons, out_of_time)


# --- the import ---


async def _existing(session: AsyncSession) -> dict[str, str]:
    rows = await session.exec(select(Site.url, Site.name))
    return {url_key(url): name for url, name in rows}


async def import_sites(
    *,
    session: AsyncSession,
    actor: UserPublic,
    data: bytes,
    kind: Kind | None = None,
    dry_run: bool = False,
    check: Check = sites.check_target,
    budget: float = RESOLVE_BUDGET_SECONDS,
) -> ImportReport:
    """Check every row of the file and create the good ones (none in a dry run): one transaction, one audit entry."""
    require_admin(actor, "import sites")
    rows = parse_file(data, kind)
    existing = await _existing(session)
    results, candidates = plan(rows, existing)
    await end_read(session)  # no pooled connection held across the DNS lookups
    checked = await check_targets(candidates, sites.MAX_SITES - len(existing), check=check, budget=budget)
    existing = await _existing(session)  # again: sites added meanwhile count too
    room = sites.MAX_SITES - len(existing)
    accepted: list[Candidate] = []
    for candidate in candidates:
        reason = _reason(candidate, checked, existing, room - len(accepted), budget)
        if reason is None:
            accepted.append(candidate)
        else:
            results[candidate.number] = RowResult(candidate.number, candidate.name, candidate.url, "refused", reason)
    result: Result = "ready" if dry_run else "added"
    for candidate in accepted:
        results[candidate.number] = RowResult(candidate.number, candidate.name, candidate.url, result)
    report = ImportReport(dry_run, [results[number] for number in sorted(results)])
    if dry_run:
        await end_read(session)
        return report
    created = _new_sites(accepted)
    session.add_all(created)
    await session.flush()
    if created:
        mark_changed(session, sites.TOPIC)
        mark_changed(session, sites.PROBE_TOPIC)
    ids = {candidate.number: site.id for candidate, site in zip(accepted, created, strict=True)}
    report = ImportReport(False, [_with_id(row, ids.get(row.row)) for row in report.rows])
    audit.record(
        session,
        category=LogCategory.system,
        action="Sites imported",
        description=f"{report.message} (by {actor.email})",
        actor_user_id=actor.id,
        details={
            "added": report.added,
            "refused": report.refused,
            "siteIds": [site.id for site in created][:1000],
            "refusedRows": [{"row": row.row, "reason": row.reason} for row in report.rows if row.reason][:100],
        },
    )
    await commit(session)
    return report


def _reason(candidate: Candidate, checked: Checked, existing: dict[str, str], room: int, budget: float) -> str | None:
    if candidate.number in checked.reasons and checked.reasons[candidate.number] is not None:
        return checked.reasons[candidate.number]
    key = url_key(candidate.url)
    if key in existing:
        return f"already monitored as {existing[key]}"
    if room <= 0:
        return f"the limit of {sites.MAX_SITES:,} monitored sites is reached"
    if candidate.number in checked.reasons:
        return None
    if checked.out_of_time:
        return f"url: not checked (the import's {budget:g} s for DNS checks ran out); import this row again"
    return f"not checked: the rows before it could reach the limit of {sites.MAX_SITES:,} sites; import it again"


def _new_sites(accepted: list[Candidate]) -> list[Site]:
    now = utcnow()
    return [
        Site(
            name=candidate.name,
            url=candidate.url,
            domain=sites.domain_of(candidate.url),
            allow_private=candidate.allow_private,
            tags=candidate.tags,
            capacity_rpm=candidate.traffic.capacity_rpm,
            signup_route=candidate.traffic.signup_route,
            probe_requested_at=now,
        )
        for candidate in accepted
    ]


def _with_id(row: RowResult, site_id: int | None) -> RowResult:
    return RowResult(row.row, row.name, row.url, row.result, row.reason, site_id) if site_id else row
