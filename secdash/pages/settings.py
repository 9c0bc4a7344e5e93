"""Settings (/settings), administrators only: alerting. Notification channels (apprise URLs, shown masked; add, edit
with a new URL, enable, allow a private address, Send test with its real result, delete after a confirmation),
the rules (one per kind of event, its channels and parameter) with reminders, flap damping and quiet hours, and the
live delivery log. A limited user sees only that administrators manage alerting.

Channel URLs are never sent to the browser: the edit dialog shows the masked URL and an empty field for a new one.
"""

import reflex as rx

from secdash.components.screens import page_header
from secdash.pages.settings_channels import channels_section, delete_dialog, edit_dialog
from secdash.pages.settings_deliveries import log_section
from secdash.pages.settings_rules import rules_section
from secdash.state.auth import AuthState
from secdash.state.settings import SettingsState

S = SettingsState


# --- page ---------------------------------------------------------------------------------------------------


def _admins_only() -> rx.Component:
    return rx.el.div(
        rx.icon("lock", class_name="h-8 w-8 text-slate-400"),
        rx.el.p("Only administrators can manage alerting.", class_name="text-slate-200", data_testid="admins-only"),
        class_name="flex flex-col items-center gap-3 rounded-xl border border-dashed border-slate-700 bg-slate-900/60 p-10",
    )


def _alerting() -> rx.Component:
    return rx.el.div(
        rx.cond(
            S.denied,
            _admins_only(),
            rx.cond(
                S.loading,
                rx.el.p("Loading alerting settings...", class_name="p-6 text-center text-slate-400", role="status"),
                rx.el.div(channels_section(), rules_section(), log_section(), class_name="flex flex-col gap-4"),
            ),
        ),
        edit_dialog(),
        delete_dialog(),
        on_mount=S.load,
        on_unmount=S.stop_following,
    )


def settings_content() -> rx.Component:
    return rx.el.div(
        page_header("Settings", "Alerting: where notifications go, which events send them, and what was sent."),
        rx.cond(AuthState.is_admin, _alerting(), _admins_only()),
    )
