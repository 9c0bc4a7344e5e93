"""Signed-in routes whose feature arrives in a later release: title and an honest empty state."""

import reflex as rx

from secdash import routes
from secdash.components.screens import not_yet_available

PENDING_MODULES = {
    routes.CODE_ARTIFACTS_ROUTE: ("Code Mode - HTML Artifacts", "Versioned HTML artifacts will appear here."),
}


def pending_module(route: str) -> rx.Component:
    title, what = PENDING_MODULES[route]
    return not_yet_available(title, what)
