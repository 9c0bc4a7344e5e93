"""A Live Code Builder plan: the project's name, what it is and its files.

The plan task (secdash/ai/tasks/build_project.py) asks a model for one, and the offline template library
(secdash/ai/project_templates) makes one; both import it from here, so neither imports the other for it.
"""

from __future__ import annotations

from pydantic import BaseModel, Field

MAX_PLANNED_FILES = 20


class PlannedFile(BaseModel):
    """One file of a plan."""

    path: str = Field(min_length=1, max_length=200)
    language: str = Field(min_length=1, max_length=40)
    description: str = Field(max_length=300)


class ProjectPlan(BaseModel):
    """What a build will write: the project's name, what it is, its files."""

    name: str = Field(min_length=1, max_length=60)
    description: str = Field(max_length=300)
    files: list[PlannedFile] = Field(min_length=1, max_length=MAX_PLANNED_FILES)
