"""The AI area's status and type values (chat roles and surfaces, threat levels, agent statuses).

The public shapes (models/public.py) are typed with them; the columns of models/ai.py still hold
the same values as plain text. A module of its own so models/ai.py can import them without a cycle.
"""

from __future__ import annotations

from enum import StrEnum


class ChatRole(StrEnum):
    user = "user"
    assistant = "assistant"


class ChatSurface(StrEnum):
    widget = "widget"
    command = "command"
    center = "center"  # type: ignore[assignment]  # a member named like str.center (typeshed sees the method)
    api = "api"


class ThreatLevel(StrEnum):
    """Spec section 4: low (green), medium (yellow), high (orange), critical (red); in rising order."""

    low = "low"
    medium = "medium"
    high = "high"
    critical = "critical"


class AgentStatus(StrEnum):
    """Spec section 4: monitoring (the default), fighting, analyzing, secured."""

    monitoring = "monitoring"
    fighting = "fighting"
    analyzing = "analyzing"
    secured = "secured"
