"""Domain errors; the API maps them to status codes and the UI to toasts."""

from __future__ import annotations


class DomainError(Exception):
    """Base of every expected failure; `message` is safe to show to the user."""

    status_code = 400

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class Invalid(DomainError):
    status_code = 400


class AuthFailed(DomainError):
    status_code = 401


class PermissionDenied(DomainError):
    status_code = 403


class NotFound(DomainError):
    status_code = 404


class Conflict(DomainError):
    status_code = 409


class TooLarge(DomainError):
    status_code = 413


class Unsupported(DomainError):
    """A body in an encoding or media type the route does not read."""

    status_code = 415


class RateLimited(DomainError):
    status_code = 429

    def __init__(self, message: str, retry_after: int) -> None:
        super().__init__(message)
        self.retry_after = retry_after


class Unavailable(DomainError):
    """The work could not be done now (e.g. the AI model failed, so no defense was deployed)."""

    status_code = 503
