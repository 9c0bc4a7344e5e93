"""Signed-in routes whose feature arrives in a later release: title and an honest empty state."""

import reflex as rx

from secdash.components.screens import not_yet_available

PENDING_MODULES: dict[str, tuple[str, str]] = {}


def pending_module(route: str) -> rx.Component:
    title, what = PENDING_MODULES[route]
    return not_yet_available(title, what)
