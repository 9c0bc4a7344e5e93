"""HTML artifacts (/code-artifacts): a user's single-page HTML documents and every version of each.

`Artifact` is the open state of one document: its name, its newest version (number and HTML), and the
generation in progress (`status` generating, with the HTML streamed so far in `draft`). `ArtifactVersion` rows
are append-only: a model answer, a hand edit and a restore each add one, so no version is ever lost.
"""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum
from typing import Any

from sqlalchemy import JSON, Column, Index, Text, UniqueConstraint
from sqlmodel import Field, SQLModel

from secdash.models.base import _enum, _ts, utcnow


class ArtifactStatus(StrEnum):
    """ready: the newest version is the content; generating: a job is writing the next one; failed: the last
    generation ended without a version (the reason is in `error`; earlier versions are untouched)."""

    generating = "generating"
    ready = "ready"
    failed = "failed"


class VersionSource(StrEnum):
    """Where a version came from."""

    model = "model"  # an OpenAI-compatible model wrote it
    offline = "offline"  # the offline template engine wrote it
    edit = "edit"  # the user edited the HTML by hand
    restore = "restore"  # an earlier version made current again


class Artifact(SQLModel, table=True):
    """One HTML artifact of one user. `current_of` holds the owner's id on the user's open artifact only
    (unique: at most one per user, decided by the database)."""

    __tablename__ = "artifacts"
    __table_args__ = (
        UniqueConstraint("current_of", name="uq_artifacts_current_of"),
        Index("ix_artifacts_owner", "owner_user_id", "updated_at"),
    )

    id: int | None = Field(default=None, primary_key=True)
    owner_user_id: int = Field(foreign_key="users.id", ondelete="CASCADE")
    current_of: int | None = Field(default=None)
    name: str = Field(default="", max_length=100)
    version: int = 0  # the newest version's number (0 until the first one exists)
    html_content: str = Field(default="", sa_type=Text)  # type: ignore[call-overload]
    status: ArtifactStatus = _enum(ArtifactStatus, name="ck_artifacts_status", length=16, default=ArtifactStatus.generating)
    job_id: int | None = Field(default=None, foreign_key="jobs.id", ondelete="SET NULL")
    prompt: str = Field(default="", sa_type=Text)  # type: ignore[call-overload]  # of the generation running or last run
    draft: str | None = Field(default=None, sa_type=Text)  # type: ignore[call-overload]  # HTML streamed so far
    engine: str = Field(default="", max_length=32)
    model: str = Field(default="", max_length=100)
    error: str | None = Field(default=None, max_length=1000)
    created_at: datetime = _ts(default_factory=utcnow)
    updated_at: datetime = _ts(default_factory=utcnow)


class ArtifactVersion(SQLModel, table=True):
    """One version of an artifact (never changed once written). `findings`: SecDash's checks over its HTML."""

    __tablename__ = "artifact_versions"
    __table_args__ = (UniqueConstraint("artifact_id", "version", name="uq_artifact_versions_version"),)

    id: int | None = Field(default=None, primary_key=True)
    artifact_id: int = Field(foreign_key="artifacts.id", ondelete="CASCADE")
    version: int
    html_content: str = Field(default="", sa_type=Text)  # type: ignore[call-overload]
    changes: str = Field(default="", max_length=500)
    prompt: str = Field(default="", sa_type=Text)  # type: ignore[call-overload]
    source: VersionSource = _enum(VersionSource, name="ck_artifact_versions_source", length=16, default=VersionSource.model)
    findings: list[dict[str, Any]] = Field(default_factory=list, sa_column=Column("findings", JSON, nullable=False))
    created_at: datetime = _ts(default_factory=utcnow)
