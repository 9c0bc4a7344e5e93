"""Exporting sites as CSV or JSON, in the columns the import reads (site_import.py): exported, then imported into
another install, they are the same sites. No secrets: no ingest tokens, nothing the probe found.

All sites but the bundled demo sites (every install has its own, at its own address), or exactly the ids given.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from secdash.models import Site, UserPublic
from secdash.services.errors import Invalid
from secdash.services.identity.permissions import require_admin
from secdash.services.monitoring.site_bulk import MAX_BULK
from secdash.services.monitoring.site_import import COLUMNS, FORMULA_STARTS

Format = Literal["csv", "json"]
MEDIA_TYPES = {"csv": "text/csv; charset=utf-8", "json": "application/json"}


@dataclass(frozen=True)
class Export:
    filename: str
    media_type: str
    content: str
    count: int


def site_row(site: Site) -> dict[str, Any]:
    """A site in the import's columns."""
    return {
        "name": site.name,
        "url": site.url,
        "allowPrivate": site.allow_private,
        "tags": list(site.tags or []),
        "capacityRpm": site.capacity_rpm,
        "signupRoute": site.signup_route,
    }


def to_json(rows: list[dict[str, Any]]) -> str:
    return json.dumps(rows, indent=2, ensure_ascii=False) + "\n"


def _cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list):
        value = ";".join(value)
    text = str(value)
    # A spreadsheet does not run it as a formula; a "'" of the text's own is doubled, so the import takes one away.
    return "'" + text if text.startswith((*FORMULA_STARTS, "'")) else text


def to_csv(rows: list[dict[str, Any]]) -> str:
    out = io.StringIO(newline="")
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow(COLUMNS)
    for row in rows:
        writer.writerow([_cell(row.get(column)) for column in COLUMNS])
    return out.getvalue()


async def export_sites(*, session: AsyncSession, actor: UserPublic, fmt: Format, site_ids: Sequence[int] | None = None) -> Export:
    """The sites (admins only) as a file: every site but the bundled demo ones, or those of `site_ids`."""
    require_admin(actor, "export sites")
    query = select(Site).order_by(col(Site.id))
    if site_ids:
        if len(site_ids) > MAX_BULK:
            raise Invalid(f"at most {MAX_BULK:,} sites at once (you chose {len(site_ids):,})")
        query = query.where(col(Site.id).in_(sorted(set(site_ids))))
    else:
        query = query.where(col(Site.is_demo).is_(False))
    rows = [site_row(site) for site in await session.exec(query)]
    content = to_csv(rows) if fmt == "csv" else to_json(rows)
    return Export(filename=f"secdash-sites.{fmt}", media_type=MEDIA_TYPES[fmt], content=content, count=len(rows))
