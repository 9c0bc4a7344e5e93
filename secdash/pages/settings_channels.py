"""Settings: the notification channels: their list (masked URL, enable and allow-private switches, Send test with its
last result), the add form, the edit dialog (the masked URL beside an empty field for a new one) and the delete
confirmation. Channel URLs are never sent to the browser."""

import reflex as rx

from secdash.components.cards import card
from secdash.components.focus import alert_dialog_content, dialog_content
from secdash.components.styles import BADGE as _BADGE
from secdash.components.styles import DANGER as _DANGER
from secdash.components.styles import PRIMARY as _PRIMARY
from secdash.components.styles import QUIET as _QUIET
from secdash.pages.settings_styles import CHECK as _CHECK
from secdash.pages.settings_styles import CHECK_LABEL as _CHECK_LABEL
from secdash.pages.settings_styles import HELP as _HELP
from secdash.pages.settings_styles import INPUT as _INPUT
from secdash.pages.settings_styles import LABEL as _LABEL
from secdash.state.settings import SettingsState
from secdash.state.settings_channels import SettingsChannelsState
from secdash.state.settings_view import ChannelRow

S = SettingsState
C = SettingsChannelsState
URL_EXAMPLES = (
    ("json://hooks.example.com/alerts", "a webhook (JSON POST)"),
    ("mailtos://user:password@example.com?to=ops@example.com", "e-mail over SMTP with TLS"),
    ("slack://TokenA/TokenB/TokenC/#alerts", "Slack"),
    ("ntfy://ntfy.sh/topic", "ntfy"),
)


# --- channels -----------------------------------------------------------------------------------------------


def _test_result(row: ChannelRow) -> rx.Component:
    return rx.el.p(
        rx.el.span("Last test: ", class_name="text-slate-400"),
        rx.el.span(
            row.test_result,
            class_name=rx.match(
                row.test_state,
                ("sent", "break-words text-emerald-300"),
                ("failed", "break-words text-red-300"),
                ("pending", "break-words text-amber-300"),
                "break-words text-slate-400",
            ),
            data_testid="channel-test-result",
        ),
        rx.cond(row.test_time != "", rx.el.span(" · ", row.test_time, class_name="text-slate-400"), rx.fragment()),
        class_name="text-sm",
        aria_live="polite",
    )


def _channel(row: ChannelRow) -> rx.Component:
    testing = C.testing_id == row.id
    return rx.el.li(
        rx.el.div(
            rx.el.h3(row.name, class_name="break-words font-semibold text-slate-100"),
            rx.el.span(row.service, class_name=f"{_BADGE} normal-case border-slate-600 bg-slate-500/10 text-slate-300"),
            rx.cond(
                row.enabled,
                rx.fragment(),
                rx.el.span("disabled", class_name=f"{_BADGE} border-amber-500/40 bg-amber-500/15 text-amber-300"),
            ),
            class_name="flex flex-wrap items-center gap-2",
        ),
        rx.el.p(
            row.url,
            class_name="break-all font-mono text-xs text-cyan-200",
            title="The URL with its secrets cut",
            data_testid="channel-url",
        ),
        rx.el.div(
            rx.el.label(
                rx.el.input(
                    type="checkbox",
                    checked=row.enabled,
                    on_change=lambda value: C.set_channel_enabled(row.id, value),
                    class_name=_CHECK,
                ),
                "Enabled",
                class_name=_CHECK_LABEL,
            ),
            rx.el.label(
                rx.el.input(
                    type="checkbox",
                    checked=row.allow_private,
                    on_change=lambda value: C.set_channel_private(row.id, value),
                    class_name=_CHECK,
                ),
                "Allow a private or local address",
                class_name=_CHECK_LABEL,
            ),
            class_name="flex flex-wrap gap-x-5 gap-y-2",
        ),
        _test_result(row),
        rx.el.div(
            rx.el.button(
                rx.icon("send", class_name="h-4 w-4"),
                rx.cond(testing, "Sending...", "Send test"),
                on_click=C.send_test(row.id),
                type="button",
                disabled=C.testing_id != 0,
                aria_label="Send a test to " + row.name,
                class_name=_PRIMARY,
                data_testid="send-test",
            ),
            rx.el.button(
                rx.icon("pencil", class_name="h-4 w-4"),
                "Edit",
                on_click=C.open_edit(row.id),
                type="button",
                aria_label="Edit " + row.name,
                class_name=_QUIET,
            ),
            rx.el.button(
                rx.icon("trash-2", class_name="h-4 w-4"),
                "Delete",
                on_click=C.ask_delete(row.id),
                type="button",
                aria_label="Delete " + row.name,
                class_name=_DANGER,
            ),
            class_name="flex flex-wrap gap-2",
        ),
        class_name="flex min-w-0 flex-col gap-2 rounded-lg border border-slate-800 bg-slate-950/40 p-3",
        data_testid="channel-row",
    )


def _url_help(help_id: str) -> rx.Component:
    return rx.el.div(
        rx.el.p(
            "An apprise URL: one covers e-mail, webhooks, Slack, Teams, Discord, Telegram, ntfy, Gotify, Matrix and "
            "more. The URL is stored encrypted and never shown again in full. Examples:",
            class_name=_HELP,
        ),
        rx.el.ul(
            *[rx.el.li(rx.el.code(url, class_name="break-all text-cyan-200"), " ", what) for url, what in URL_EXAMPLES],
            class_name="ml-4 list-disc text-xs text-slate-400",
        ),
        rx.el.p(
            "Every service's URL: ",
            rx.el.a(
                "the apprise wiki",
                href="https://github.com/caronc/apprise/wiki",
                target="_blank",
                rel="noopener noreferrer",
                class_name="text-cyan-300 underline",
            ),
            ".",
            class_name=_HELP,
        ),
        id=help_id,
        class_name="flex flex-col gap-1",
    )


def _add_form() -> rx.Component:
    return rx.el.form(
        rx.el.h3("Add channel", class_name="font-semibold text-slate-100"),
        rx.el.div(
            rx.el.label("Name", html_for="channel-name", class_name=_LABEL),
            rx.el.input(
                id="channel-name",
                name="name",
                placeholder="Ops webhook",
                max_length=100,
                required=True,
                auto_complete="off",
                class_name=_INPUT,
            ),
            class_name="flex flex-col gap-1",
        ),
        rx.el.div(
            rx.el.label("Apprise URL", html_for="channel-url", class_name=_LABEL),
            rx.el.input(
                id="channel-url",
                name="url",
                placeholder="json://hooks.example.com/alerts",
                required=True,
                auto_complete="off",
                spell_check=False,
                aria_describedby="channel-url-help",
                class_name=f"{_INPUT} font-mono",
            ),
            _url_help("channel-url-help"),
            class_name="flex flex-col gap-1",
        ),
        rx.el.label(
            # Uncontrolled: it ticks at once (a controlled box waited for the server's round trip); the form's key
            # starts it afresh, unticked, after a channel is added.
            rx.el.input(type="checkbox", default_checked=C.add_private, on_change=C.set_add_private, class_name=_CHECK),
            "Allow a private or local address (only for hosts you own)",
            class_name=_CHECK_LABEL,
        ),
        rx.el.div(rx.el.button(rx.icon("plus", class_name="h-4 w-4"), "Add channel", type="submit", class_name=_PRIMARY)),
        key=C.add_key,
        on_submit=C.add_channel,
        aria_label="Add channel",
        class_name="flex flex-col gap-3 rounded-lg border border-slate-800 bg-slate-950/40 p-3",
    )


def channels_section() -> rx.Component:
    return card(
        rx.cond(
            S.channels.length() > 0,
            rx.el.ul(
                rx.foreach(S.channels, _channel),
                class_name="mb-4 grid grid-cols-1 gap-3 lg:grid-cols-2",
                aria_label="Notification channels",
            ),
            rx.el.p(
                "No channel yet: add one below, then send it a test.",
                class_name="mb-4 text-sm text-slate-400",
                data_testid="no-channels",
            ),
        ),
        _add_form(),
        title="Notification channels",
        aria_label="Notification channels",
    )


def edit_dialog() -> rx.Component:
    return rx.dialog.root(
        dialog_content(
            rx.dialog.title("Edit channel", class_name="text-slate-100"),
            rx.dialog.description(
                "The current URL is shown with its secrets cut. Leave the new URL empty to keep it.",
                class_name="text-sm text-slate-300",
            ),
            rx.el.form(
                rx.el.label("Name", html_for="edit-channel-name", class_name=_LABEL),
                rx.el.input(
                    id="edit-channel-name",
                    name="name",
                    default_value=C.edit_name,
                    max_length=100,
                    auto_complete="off",
                    class_name=_INPUT,
                ),
                rx.el.p(
                    "Current URL: ",
                    rx.el.code(C.edit_url, class_name="break-all text-cyan-200"),
                    class_name="text-sm text-slate-300",
                ),
                rx.el.label("New apprise URL (optional)", html_for="edit-channel-url", class_name=_LABEL),
                rx.el.input(
                    id="edit-channel-url",
                    name="url",
                    placeholder="Leave empty to keep the current URL",
                    auto_complete="off",
                    spell_check=False,
                    aria_describedby="edit-channel-url-help",
                    class_name=f"{_INPUT} font-mono",
                ),
                _url_help("edit-channel-url-help"),
                rx.el.label(
                    rx.el.input(type="checkbox", checked=C.edit_private, on_change=C.set_edit_private, class_name=_CHECK),
                    "Allow a private or local address",
                    class_name=_CHECK_LABEL,
                ),
                rx.el.div(
                    rx.dialog.close(rx.el.button("Cancel", type="button", class_name=_QUIET)),
                    rx.el.button("Save channel", type="submit", class_name=_PRIMARY),
                    class_name="mt-2 flex justify-end gap-2",
                ),
                key=C.edit_key,
                on_submit=C.save_channel,
                class_name="mt-3 flex flex-col gap-2",
            ),
            class_name="bg-slate-900",
        ),
        open=C.edit_open,
        on_open_change=C.set_edit_open,
    )


def delete_dialog() -> rx.Component:
    return rx.alert_dialog.root(
        alert_dialog_content(
            rx.alert_dialog.title("Delete channel ", C.delete_name, "?"),
            rx.alert_dialog.description(
                "It receives no more alerts, and rules lose it. Its past deliveries stay in the log.",
                class_name="text-sm text-slate-300",
            ),
            rx.el.div(
                rx.alert_dialog.cancel(rx.el.button("Keep channel", type="button", class_name=_QUIET)),
                rx.alert_dialog.action(
                    rx.el.button(
                        "Delete channel",
                        type="button",
                        on_click=C.delete_channel,
                        class_name=_DANGER,
                        data_testid="confirm-delete",
                    )
                ),
                class_name="mt-4 flex justify-end gap-2",
            ),
            class_name="bg-slate-900",
        ),
        open=C.delete_open,
        on_open_change=C.set_delete_open,
    )
