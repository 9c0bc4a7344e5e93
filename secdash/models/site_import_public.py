"""The public shapes of importing sites and of the operations on many sites (issue 26), shared by the API and the
Dashboard's Import / export dialog."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from secdash.models.public import PublicModel


class SiteImportRowPublic(PublicModel):
    """One row of the file: added (or, in a dry run, ready to be), or refused and why (the single-site form's
    message). `row`: a CSV file's spreadsheet row (the header is row 1), a JSON file's position (1 for the first)."""

    row: int
    name: str
    url: str
    result: Literal["added", "ready", "refused"]
    reason: str | None = None
    site_id: int | None = None


class SiteImportPublic(PublicModel):
    dry_run: bool
    added: int = Field(description="sites created (a dry run: that would be)")
    refused: int
    message: str
    rows: list[SiteImportRowPublic]


class BulkOutcomePublic(PublicModel):
    """What a pause, resume or removal of chosen sites did."""

    changed: int
    unchanged: int = Field(description="already so (paused, or resumed)")
    missing: int = Field(description="ids that name no site (removed meanwhile)")
    message: str
