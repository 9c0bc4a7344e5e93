"""The four bundled demo sites (spec section 1: the platforms Stock, Tour, Gem and Shares), named once: the default
sites, their platform agents, drills, the simulated traffic and the dashboard all read these. Below every layer
(the AI layer, which imports only core/, names them too); the sites themselves are served by secdash/demo_sites."""

from __future__ import annotations

# (name, slug): the name users see, the slug of its demo site (/demo/<slug>/), agent and drills.
DEMO_SITES: tuple[tuple[str, str], ...] = (("Stock", "stock"), ("Tour", "tour"), ("Gem", "gem"), ("Shares", "shares"))
NAMES: tuple[str, ...] = tuple(name for name, _slug in DEMO_SITES)
SLUGS: tuple[str, ...] = tuple(slug for _name, slug in DEMO_SITES)
NAME_OF: dict[str, str] = {slug: name for name, slug in DEMO_SITES}
