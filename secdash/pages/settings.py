"""Settings (/settings), administrators only: alerting. Notification channels (apprise URLs, shown masked; add, edit
with a new URL, enable, allow a private address, Send test with its real result, delete after a confirmation),
the rules (one per kind of event, its channels and parameter) with reminders, flap damping and quiet hours, and the
live delivery log. A limited user sees only that administrators manage alerting.

Channel URLs are never sent to the browser: the edit dialog shows the masked URL and an empty field for a new one.
"""

import reflex as rx

from secdash.components.cards import card
from secdash.components.focus import alert_dialog_content, dialog_content
from secdash.components.screens import page_header
from secdash.components.styles import BADGE as _BADGE
from secdash.components.styles import DANGER as _DANGER
from secdash.components.styles import FOCUS as _FOCUS
from secdash.components.styles import PRIMARY as _PRIMARY
from secdash.components.styles import QUIET as _QUIET
from secdash.state.auth import AuthState
from secdash.state.settings import ChannelRow, DeliveryRow, RuleRow, SettingsState

S = SettingsState
_INPUT = f"w-full rounded-md border border-slate-700 bg-slate-950 px-3 py-2 text-sm text-slate-100 {_FOCUS}"
_SMALL_INPUT = f"w-24 rounded-md border border-slate-700 bg-slate-950 px-2 py-1.5 text-sm text-slate-100 {_FOCUS}"
_SELECT = f"rounded-md border border-slate-700 bg-slate-950 px-2 py-1.5 text-sm text-slate-200 {_FOCUS}"
_CHECK = "h-4 w-4 shrink-0 accent-cyan-500"
_CHECK_LABEL = "flex items-center gap-2 text-sm text-slate-300"
_LABEL = "text-sm font-medium text-slate-200"
_HELP = "text-xs text-slate-400"
URL_EXAMPLES = (
    ("json://hooks.example.com/alerts", "a webhook (JSON POST)"),
    ("mailtos://user:password@example.com?to=ops@example.com", "e-mail over SMTP with TLS"),
    ("slack://TokenA/TokenB/TokenC/#alerts", "Slack"),
    ("ntfy://ntfy.sh/topic", "ntfy"),
)
OUTCOME_CLASSES = (
    ("sent", "bg-emerald-500/15 text-emerald-300 border-emerald-500/40"),
    ("failed", "bg-red-500/15 text-red-300 border-red-500/40"),
    ("retrying", "bg-amber-500/15 text-amber-300 border-amber-500/40"),
    ("pending", "bg-cyan-500/15 text-cyan-300 border-cyan-500/40"),
)


def outcome_badge(outcome, label=None, **props) -> rx.Component:
    return rx.el.span(
        label if label is not None else outcome,
        class_name=rx.match(
            outcome,
            *[(key, f"{_BADGE} {value}") for key, value in OUTCOME_CLASSES],
            f"{_BADGE} bg-slate-500/15 text-slate-300 border-slate-500/40",
        ),
        **props,
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
    testing = S.testing_id == row.id
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
                    on_change=lambda value: S.set_channel_enabled(row.id, value),
                    class_name=_CHECK,
                ),
                "Enabled",
                class_name=_CHECK_LABEL,
            ),
            rx.el.label(
                rx.el.input(
                    type="checkbox",
                    checked=row.allow_private,
                    on_change=lambda value: S.set_channel_private(row.id, value),
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
                on_click=S.send_test(row.id),
                type="button",
                disabled=S.testing_id != 0,
                aria_label="Send a test to " + row.name,
                class_name=_PRIMARY,
                data_testid="send-test",
            ),
            rx.el.button(
                rx.icon("pencil", class_name="h-4 w-4"),
                "Edit",
                on_click=S.open_edit(row.id),
                type="button",
                aria_label="Edit " + row.name,
                class_name=_QUIET,
            ),
            rx.el.button(
                rx.icon("trash-2", class_name="h-4 w-4"),
                "Delete",
                on_click=S.ask_delete(row.id),
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
            rx.el.input(type="checkbox", default_checked=S.add_private, on_change=S.set_add_private, class_name=_CHECK),
            "Allow a private or local address (only for hosts you own)",
            class_name=_CHECK_LABEL,
        ),
        rx.el.div(rx.el.button(rx.icon("plus", class_name="h-4 w-4"), "Add channel", type="submit", class_name=_PRIMARY)),
        key=S.add_key,
        on_submit=S.add_channel,
        aria_label="Add channel",
        class_name="flex flex-col gap-3 rounded-lg border border-slate-800 bg-slate-950/40 p-3",
    )


def _channels() -> rx.Component:
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


def _edit_dialog() -> rx.Component:
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
                    default_value=S.edit_name,
                    max_length=100,
                    auto_complete="off",
                    class_name=_INPUT,
                ),
                rx.el.p(
                    "Current URL: ",
                    rx.el.code(S.edit_url, class_name="break-all text-cyan-200"),
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
                    rx.el.input(type="checkbox", checked=S.edit_private, on_change=S.set_edit_private, class_name=_CHECK),
                    "Allow a private or local address",
                    class_name=_CHECK_LABEL,
                ),
                rx.el.div(
                    rx.dialog.close(rx.el.button("Cancel", type="button", class_name=_QUIET)),
                    rx.el.button("Save channel", type="submit", class_name=_PRIMARY),
                    class_name="mt-2 flex justify-end gap-2",
                ),
                key=S.edit_key,
                on_submit=S.save_channel,
                class_name="mt-3 flex flex-col gap-2",
            ),
            class_name="bg-slate-900",
        ),
        open=S.edit_open,
        on_open_change=S.set_edit_open,
    )


def _delete_dialog() -> rx.Component:
    return rx.alert_dialog.root(
        alert_dialog_content(
            rx.alert_dialog.title("Delete channel ", S.delete_name, "?"),
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
                        on_click=S.delete_channel,
                        class_name=_DANGER,
                        data_testid="confirm-delete",
                    )
                ),
                class_name="mt-4 flex justify-end gap-2",
            ),
            class_name="bg-slate-900",
        ),
        open=S.delete_open,
        on_open_change=S.set_delete_open,
    )


# --- rules --------------------------------------------------------------------------------------------------


def _rule_channel(rule: RuleRow, channel: ChannelRow) -> rx.Component:
    return rx.el.label(
        rx.el.input(
            type="checkbox",
            checked=rule.channel_ids.contains(channel.id),
            on_change=lambda value: S.set_rule_channel(rule.kind, channel.id, value),
            class_name=_CHECK,
        ),
        channel.name,
        class_name=_CHECK_LABEL,
    )


def _rule(rule: RuleRow) -> rx.Component:
    enabled_id = "rule-" + rule.kind + "-enabled"
    scope_id = "rule-" + rule.kind + "-scope"
    param_id = "rule-" + rule.kind + "-param"
    return rx.el.li(
        rx.el.label(
            rx.el.input(
                id=enabled_id,
                type="checkbox",
                checked=rule.enabled,
                on_change=lambda value: S.set_rule_enabled(rule.kind, value),
                class_name=_CHECK,
            ),
            rx.el.span(rule.label, class_name="font-medium text-slate-100"),
            class_name="flex items-center gap-2 text-sm md:col-span-5",
        ),
        rx.el.div(
            rx.el.label("Send to", html_for=scope_id, class_name="text-xs text-slate-400"),
            rx.el.select(
                rx.el.option("All enabled channels", value="all"),
                rx.el.option("Chosen channels", value="chosen"),
                id=scope_id,
                value=rule.scope,
                on_change=lambda value: S.set_rule_scope(rule.kind, value),
                class_name=f"{_SELECT} w-full sm:w-64",
            ),
            rx.cond(
                rule.scope == "chosen",
                rx.cond(
                    S.channels.length() > 0,
                    rx.el.div(
                        rx.foreach(S.channels, lambda channel: _rule_channel(rule, channel)),
                        role="group",
                        aria_label="Channels for: " + rule.label,
                        class_name="flex flex-wrap gap-x-4 gap-y-1",
                    ),
                    rx.el.p("No channel yet.", class_name=_HELP),
                ),
                rx.fragment(),
            ),
            class_name="flex min-w-0 flex-col gap-1 md:col-span-4",
        ),
        rx.el.div(
            rx.match(
                rule.param,
                ("days", rx.el.label("Days before expiry", html_for=param_id, class_name="text-xs text-slate-400")),
                ("threshold", rx.el.label("Below effectiveness (%)", html_for=param_id, class_name="text-xs text-slate-400")),
                ("severity", rx.el.label("At or above severity", html_for=param_id, class_name="text-xs text-slate-400")),
                rx.fragment(),
            ),
            rx.match(
                rule.param,
                (
                    "severity",
                    rx.el.select(
                        *[
                            rx.el.option(label, value=value)
                            for value, label in (("low", "Low"), ("medium", "Medium"), ("high", "High (the top severity)"))
                        ],
                        id=param_id,
                        value=rule.param_value,
                        on_change=lambda value: S.set_rule_param(rule.kind, value),
                        class_name=f"{_SELECT} w-fit",
                    ),
                ),
                ("", rx.fragment()),
                rx.el.input(
                    id=param_id,
                    type="text",
                    input_mode="numeric",
                    default_value=rule.param_value,
                    key=S.rules_key.to_string() + rule.kind,
                    max_length=6,
                    on_blur=lambda value: S.set_rule_param(rule.kind, value),
                    class_name=_SMALL_INPUT,
                ),
            ),
            class_name="flex flex-col gap-1 md:col-span-3",
        ),
        class_name="grid grid-cols-1 gap-2 border-b border-slate-800 py-3 last:border-b-0 md:grid-cols-12 md:gap-4",
        data_testid="rule-row",
    )


def _setting(label: str, field_id: str, value, handler, hint: str, width: str = "w-24") -> rx.Component:
    return rx.el.div(
        rx.el.label(label, html_for=field_id, class_name="text-xs text-slate-400"),
        rx.el.input(
            id=field_id,
            type="text",
            default_value=value,
            key=S.rules_key,
            on_blur=handler,
            max_length=8,
            aria_describedby=f"{field_id}-hint",
            class_name=f"{width} rounded-md border border-slate-700 bg-slate-950 px-2 py-1.5 text-sm text-slate-100 {_FOCUS}",
        ),
        rx.el.span(hint, id=f"{field_id}-hint", class_name=_HELP),
        class_name="flex flex-col gap-1",
    )


def _rules() -> rx.Component:
    return card(
        rx.el.p("Which events notify which channels. Changes apply when saved.", class_name="mb-2 text-sm text-slate-400"),
        rx.el.ul(rx.foreach(S.rules, _rule), aria_label="Rules"),
        rx.el.fieldset(
            rx.el.legend("Reminders, flap damping and quiet hours", class_name="px-1 text-sm font-semibold text-slate-200"),
            rx.el.div(
                _setting(
                    "Reminder every (minutes)",
                    "reminder-minutes",
                    S.reminder_minutes,
                    S.set_reminder_minutes,
                    "while a site stays down; 0: none",
                ),
                _setting(
                    "Recovery after (seconds)",
                    "recovery-seconds",
                    S.recovery_seconds,
                    S.set_recovery_seconds,
                    "a site must stay up this long",
                ),
                rx.el.div(
                    rx.el.span("Quiet hours", class_name="text-xs text-slate-400"),
                    rx.el.label(
                        rx.el.input(type="checkbox", checked=S.quiet_enabled, on_change=S.set_quiet_enabled, class_name=_CHECK),
                        "Hold alerts in quiet hours",
                        class_name=_CHECK_LABEL,
                    ),
                    rx.el.span("logged as suppressed", class_name=_HELP),
                    class_name="flex flex-col gap-1",
                ),
                _setting("Quiet from (UTC)", "quiet-start", S.quiet_start, S.set_quiet_start, "HH:MM, 24-hour"),
                _setting("Quiet until (UTC)", "quiet-end", S.quiet_end, S.set_quiet_end, "HH:MM, 24-hour"),
                class_name="flex flex-wrap gap-x-6 gap-y-3",
            ),
            class_name="mt-3 rounded-lg border border-slate-800 p-3",
        ),
        rx.el.div(
            rx.el.button(
                rx.icon("save", class_name="h-4 w-4"),
                "Save rules",
                on_click=S.save_rules,
                type="button",
                class_name=_PRIMARY,
                data_testid="save-rules",
            ),
            rx.el.button("Discard changes", on_click=S.discard_rules, type="button", disabled=~S.rules_dirty, class_name=_QUIET),
            rx.cond(
                S.rules_dirty, rx.el.span("Unsaved changes", class_name="text-xs text-amber-300", role="status"), rx.fragment()
            ),
            class_name="mt-3 flex flex-wrap items-center gap-2",
        ),
        title="Rules",
        aria_label="Rules",
    )


# --- delivery log -------------------------------------------------------------------------------------------


def _delivery(row: DeliveryRow) -> rx.Component:
    return rx.el.li(
        rx.el.span(row.time, class_name="font-mono text-xs text-slate-400 md:col-span-3"),
        rx.el.span(row.channel, class_name="break-words text-sm text-slate-200 md:col-span-2"),
        rx.el.span(row.kind, class_name="text-sm text-slate-300 md:col-span-1"),
        rx.el.span(row.title, class_name="break-words text-sm text-slate-100 md:col-span-3"),
        rx.el.span(
            outcome_badge(row.outcome, data_testid="delivery-outcome"),
            rx.el.span(row.attempts, rx.cond(row.attempts == 1, " attempt", " attempts"), class_name="text-xs text-slate-400"),
            class_name="flex flex-wrap items-center gap-2 md:col-span-3",
        ),
        rx.cond(
            row.error != "",
            rx.el.span(row.error, class_name="break-words text-xs text-red-300 md:col-span-12", data_testid="delivery-error"),
            rx.fragment(),
        ),
        class_name="grid grid-cols-1 gap-1 border-b border-slate-800 py-2 last:border-b-0 md:grid-cols-12 md:gap-3",
        data_testid="delivery-row",
    )


def _log() -> rx.Component:
    head = "text-xs font-semibold uppercase tracking-wide text-slate-400"
    return card(
        rx.cond(
            S.deliveries.length() > 0,
            rx.el.div(
                rx.el.div(
                    rx.el.span("Time", class_name=f"{head} md:col-span-3"),
                    rx.el.span("Channel", class_name=f"{head} md:col-span-2"),
                    rx.el.span("Kind", class_name=f"{head} md:col-span-1"),
                    rx.el.span("Title", class_name=f"{head} md:col-span-3"),
                    rx.el.span("Outcome", class_name=f"{head} md:col-span-3"),
                    class_name="hidden border-b border-slate-800 pb-2 md:grid md:grid-cols-12 md:gap-3",
                    aria_hidden="true",
                ),
                rx.el.ul(rx.foreach(S.deliveries, _delivery), aria_label="Deliveries, newest first"),
            ),
            rx.el.p("Nothing sent yet.", class_name="text-sm text-slate-400", data_testid="no-deliveries"),
        ),
        title="Delivery log",
        extra=rx.el.span("newest first · live", class_name="text-xs text-slate-400"),
        aria_label="Delivery log",
        data_testid="delivery-log",
    )


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
                rx.el.div(_channels(), _rules(), _log(), class_name="flex flex-col gap-4"),
            ),
        ),
        _edit_dialog(),
        _delete_dialog(),
        on_mount=S.load,
        on_unmount=S.stop_following,
    )


def settings_content() -> rx.Component:
    return rx.el.div(
        page_header("Settings", "Alerting: where notifications go, which events send them, and what was sent."),
        rx.cond(AuthState.is_admin, _alerting(), _admins_only()),
    )
