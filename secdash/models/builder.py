"""The Live Code Builder's tables: a user's code projects and their files (a build's log is its job's log)."""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum
from typing import Any

from sqlalchemy import JSON, Column, Index, Text, UniqueConstraint
from sqlmodel import Field, SQLModel

from secdash.models.base import _enum, _ts, utcnow


class ProjectStatus(StrEnum):
    """A project's life as the spec colours it: planning -> building -> testing -> complete; failed on error.

    The first three are the phases of its build job (the job's progress, shown while it runs); the row keeps only
    the outcome, complete or failed (a row still holding its first value, planning, has had no outcome yet)."""

    planning = "planning"  # the model plans the files
    building = "building"  # files are being written
    testing = "testing"  # the checks run over the files
    complete = "complete"
    failed = "failed"  # the reason is in `error` and in the log


WORKING_STATUSES = (ProjectStatus.planning, ProjectStatus.building, ProjectStatus.testing)


class BuildLogType(StrEnum):
    """How a build log line is shown: error red, success green, code monospace, info neutral (the job log's
    levels of the same names)."""

    info = "info"
    success = "success"
    error = "error"
    code = "code"


class FileChange(StrEnum):
    """What the newest build or continue did to a file."""

    created = "created"
    updated = "updated"
    unchanged = "unchanged"


class CodeProject(SQLModel, table=True):
    """One project of one user. `current_of` holds the owner's id on the user's current project only (unique, so a
    user has at most one current project, decided by the database); `snapshot_of` marks a saved copy."""

    __tablename__ = "code_projects"
    __table_args__ = (
        UniqueConstraint("current_of", name="uq_code_projects_current_of"),
        Index("ix_code_projects_owner", "owner_user_id", "id"),
    )

    id: int | None = Field(default=None, primary_key=True)
    owner_user_id: int = Field(foreign_key="users.id", ondelete="CASCADE")
    current_of: int | None = Field(default=None)
    snapshot_of: int | None = Field(default=None, foreign_key="code_projects.id", ondelete="SET NULL")
    name: str = Field(default="", max_length=100)
    description: str = Field(default="", max_length=500)
    prompt: str = Field(default="", sa_type=Text)  # type: ignore[call-overload]
    status: ProjectStatus = _enum(ProjectStatus, name="ck_code_projects_status", length=16, default=ProjectStatus.planning)
    job_id: int | None = Field(default=None, foreign_key="jobs.id", ondelete="SET NULL")
    engine: str = Field(default="", max_length=32)
    model: str = Field(default="", max_length=100)
    error: str | None = Field(default=None, max_length=1000)
    checks: dict[str, Any] = Field(default_factory=dict, sa_column=Column("checks", JSON, nullable=False))
    created_at: datetime = _ts(default_factory=utcnow)
    updated_at: datetime = _ts(default_factory=utcnow)


class ProjectFile(SQLModel, table=True):
    """A file of a project; `previous` is its content before the newest continue changed it (for the diff)."""

    __tablename__ = "project_files"
    __table_args__ = (UniqueConstraint("project_id", "filename", name="uq_project_files_name"),)

    id: int | None = Field(default=None, primary_key=True)
    project_id: int = Field(foreign_key="code_projects.id", ondelete="CASCADE")
    filename: str = Field(max_length=200)
    language: str = Field(default="text", max_length=32)
    description: str = Field(default="", max_length=300)
    content: str = Field(default="", sa_type=Text)  # type: ignore[call-overload]
    previous: str | None = Field(default=None, sa_type=Text)  # type: ignore[call-overload]
    change: FileChange = _enum(FileChange, name="ck_project_files_change", length=16, default=FileChange.created)
    complete: bool = True  # False while it is being written, or when the answer ended inside it
    updated_at: datetime = _ts(default_factory=utcnow)
