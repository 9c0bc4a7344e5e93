"""Role rules shared by the services: who may change configuration, and what a limited user may read."""

from __future__ import annotations

from secdash.models import LogCategory, Role, UserPublic
from secdash.services.errors import PermissionDenied

# What every signed-in user reads in full. Battle Station shows every drill to every user, so its history does too;
# a limited user reads the other categories' entries only where they are the actor (and never an admin-only entry).
SHARED_CATEGORIES = frozenset({LogCategory.system.value, LogCategory.battle.value})
ALL_CATEGORIES = frozenset(category.value for category in LogCategory)


def require_admin(actor: UserPublic, action: str) -> None:
    """Only administrators may change configuration; limited users read."""
    if actor.role != Role.admin.value:
        raise PermissionDenied(f"Only administrators may {action}")


def fully_readable(viewer: UserPublic) -> frozenset[str]:
    """The categories of the audit trail (and the screens that show the same events: History Logs' tabs, Battle
    Station's operations) whose every entry the viewer may read. The one rule both screens use."""
    return ALL_CATEGORIES if viewer.role == Role.admin.value else SHARED_CATEGORIES


def may_read_all(viewer: UserPublic, category: LogCategory | str) -> bool:
    return str(getattr(category, "value", category)) in fully_readable(viewer)
