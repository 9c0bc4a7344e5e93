"""A site's traffic settings: the capacity Live Traffic measures it against, and its signup route.

- `capacity_rpm`: the requests per minute the site is built to serve (1 to 10,000,000); Live Traffic shows the last
  minute's requests as a share of it. None: not set (no capacity figure).
- `signup_route`: the path a signup is POSTed to (`/account/create`); a POST to it (with or without a trailing slash,
  whatever the query) answered 2xx or 3xx is a signup. None: the usual routes (`/signup`, `/register`, `/join`,
  `/create-account`, `/sign-up`, under any prefix).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from secdash.services.errors import Invalid

MAX_CAPACITY_RPM = 10_000_000
MAX_ROUTE = 200
DEFAULT_SIGNUP = re.compile(r"(?i)^/(?:[\w-]+/)*(?:signup|sign-up|register|join|create-account)/?$")
_ROUTE = re.compile(r"^/[!-~]*$")  # a path: printable ASCII, no space


@dataclass(frozen=True)
class TrafficSettings:
    capacity_rpm: int | None = None
    signup_route: str | None = None


def clean(capacity_rpm: Any, signup_route: Any) -> TrafficSettings:
    """Checked settings (Invalid names what is wrong); an empty route or a null capacity means "not set"."""
    if capacity_rpm is not None and (
        isinstance(capacity_rpm, bool) or not isinstance(capacity_rpm, int) or not 1 <= capacity_rpm <= MAX_CAPACITY_RPM
    ):
        raise Invalid(f"capacityRpm must be a whole number from 1 to {MAX_CAPACITY_RPM:,} (requests per minute), or null")
    route = signup_route.strip() if isinstance(signup_route, str) else signup_route
    if route in (None, ""):
        return TrafficSettings(capacity_rpm, None)
    if not isinstance(route, str) or len(route) > MAX_ROUTE or not _ROUTE.match(route) or "?" in route or "#" in route:
        raise Invalid(f"signupRoute must be a path such as /account/create (at most {MAX_ROUTE} characters, no query)")
    return TrafficSettings(capacity_rpm, route.rstrip("/") or "/")


def is_signup(method: str, status: int, target: str, route: str | None) -> bool:
    """A POST to the signup route (the site's, else the usual ones) answered 2xx or 3xx."""
    if method != "POST" or not 200 <= status < 400:
        return False
    path = target.split("?", 1)[0].split("#", 1)[0]
    if route is None:
        return DEFAULT_SIGNUP.match(path) is not None
    return (path.rstrip("/") or "/") == route


def capacity_percent(requests_per_minute: int, capacity_rpm: int | None) -> int | None:
    return None if not capacity_rpm else round(requests_per_minute * 100 / capacity_rpm)
