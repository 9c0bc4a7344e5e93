"""How a site's status reads wherever it is shown (dashboard cards, problem notes, the agents' answers): the one
list of labels. Below every layer (the AI layer, which imports only core/, shows them too)."""

from __future__ import annotations

# SiteStatus value -> the label users see (spec: SECURE, CHECKING, ALERT).
STATUS_LABELS: dict[str, str] = {"secure": "SECURE", "warning": "CHECKING", "critical": "ALERT"}
# The labels from the worst status to the best.
LABELS_WORST_FIRST: tuple[str, ...] = tuple(STATUS_LABELS[status] for status in ("critical", "warning", "secure"))
