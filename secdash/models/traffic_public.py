"""Traffic's public shapes shared by the API and the dashboard."""

from __future__ import annotations

from secdash.models.public import PublicModel, UtcDateTime


class DecisionPublic(PublicModel):
    id: int
    scope: str
    value: str
    type: str
    origin: str
    scenario: str
    reason: str
    site_id: int | None
    created_at: UtcDateTime
    until: UtcDateTime
    deleted_at: UtcDateTime | None
