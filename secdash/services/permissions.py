"""Role rules shared by the services."""

from __future__ import annotations

from secdash.models import Role, UserPublic
from secdash.services.errors import PermissionDenied


def require_admin(actor: UserPublic, action: str) -> None:
    """Only administrators may change configuration; limited users read."""
    if actor.role != Role.admin.value:
        raise PermissionDenied(f"Only administrators may {action}")
