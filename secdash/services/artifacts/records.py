"""What the artifacts' request side and their job share: the job kind and the change topics."""

from __future__ import annotations

KIND = "artifact"
# A job that ended with its worker (the server stopped, the worker vanished): the reaper or the runner says so.
INTERRUPTED = "The generation was interrupted (the server stopped during it): run it again"
TOPIC = "artifacts"  # every artifact job's row and log (the job system's area topic)


def topic_of(user_id: int) -> str:
    """The change topic of one user's artifacts (rows, the draft as it streams, new versions)."""
    return f"artifacts:{user_id}"
