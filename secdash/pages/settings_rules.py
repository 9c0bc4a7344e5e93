"""Settings: the alerting rules (one per kind of event: on or off, all channels or chosen ones, its parameter) with
reminders, flap damping and quiet hours: a draft until Save or Discard."""

import reflex as rx

from secdash.components.cards import card
from secdash.components.styles import FOCUS as _FOCUS
from secdash.components.styles import PRIMARY as _PRIMARY
from secdash.components.styles import QUIET as _QUIET
from secdash.pages.settings_styles import CHECK as _CHECK
from secdash.pages.settings_styles import CHECK_LABEL as _CHECK_LABEL
from secdash.pages.settings_styles import HELP as _HELP
from secdash.pages.settings_styles import SELECT as _SELECT
from secdash.pages.settings_styles import SMALL_INPUT as _SMALL_INPUT
from secdash.state.settings import SettingsState
from secdash.state.settings_rules import SettingsRulesState
from secdash.state.settings_view import ChannelRow, RuleRow

S = SettingsState
R = SettingsRulesState


# --- rules --------------------------------------------------------------------------------------------------


def _rule_channel(rule: RuleRow, channel: ChannelRow) -> rx.Component:
    return rx.el.label(
        rx.el.input(
            type="checkbox",
            checked=rule.channel_ids.contains(channel.id),
            on_change=lambda value: R.set_rule_channel(rule.kind, channel.id, value),
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
                on_change=lambda value: R.set_rule_enabled(rule.kind, value),
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
                on_change=lambda value: R.set_rule_scope(rule.kind, value),
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
                        on_change=lambda value: R.set_rule_param(rule.kind, value),
                        class_name=f"{_SELECT} w-fit",
                    ),
                ),
                ("", rx.fragment()),
                rx.el.input(
                    id=param_id,
                    type="text",
                    input_mode="numeric",
                    default_value=rule.param_value,
                    key=R.rules_key.to_string() + rule.kind,
                    max_length=6,
                    on_blur=lambda value: R.set_rule_param(rule.kind, value),
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
            key=R.rules_key,
            on_blur=handler,
            max_length=8,
            aria_describedby=f"{field_id}-hint",
            class_name=f"{width} rounded-md border border-slate-700 bg-slate-950 px-2 py-1.5 text-sm text-slate-100 {_FOCUS}",
        ),
        rx.el.span(hint, id=f"{field_id}-hint", class_name=_HELP),
        class_name="flex flex-col gap-1",
    )


def rules_section() -> rx.Component:
    return card(
        rx.el.p("Which events notify which channels. Changes apply when saved.", class_name="mb-2 text-sm text-slate-400"),
        rx.el.ul(rx.foreach(R.rules, _rule), aria_label="Rules"),
        rx.el.fieldset(
            rx.el.legend("Reminders, flap damping and quiet hours", class_name="px-1 text-sm font-semibold text-slate-200"),
            rx.el.div(
                _setting(
                    "Reminder every (minutes)",
                    "reminder-minutes",
                    R.reminder_minutes,
                    R.set_reminder_minutes,
                    "while a site stays down; 0: none",
                ),
                _setting(
                    "Recovery after (seconds)",
                    "recovery-seconds",
                    R.recovery_seconds,
                    R.set_recovery_seconds,
                    "a site must stay up this long",
                ),
                rx.el.div(
                    rx.el.span("Quiet hours", class_name="text-xs text-slate-400"),
                    rx.el.label(
                        rx.el.input(type="checkbox", checked=R.quiet_enabled, on_change=R.set_quiet_enabled, class_name=_CHECK),
                        "Hold alerts in quiet hours",
                        class_name=_CHECK_LABEL,
                    ),
                    rx.el.span("logged as suppressed", class_name=_HELP),
                    class_name="flex flex-col gap-1",
                ),
                _setting("Quiet from (UTC)", "quiet-start", R.quiet_start, R.set_quiet_start, "HH:MM, 24-hour"),
                _setting("Quiet until (UTC)", "quiet-end", R.quiet_end, R.set_quiet_end, "HH:MM, 24-hour"),
                class_name="flex flex-wrap gap-x-6 gap-y-3",
            ),
            class_name="mt-3 rounded-lg border border-slate-800 p-3",
        ),
        rx.el.div(
            rx.el.button(
                rx.icon("save", class_name="h-4 w-4"),
                "Save rules",
                on_click=R.save_rules,
                type="button",
                class_name=_PRIMARY,
                data_testid="save-rules",
            ),
            rx.el.button("Discard changes", on_click=R.discard_rules, type="button", disabled=~R.rules_dirty, class_name=_QUIET),
            rx.cond(
                R.rules_dirty, rx.el.span("Unsaved changes", class_name="text-xs text-amber-300", role="status"), rx.fragment()
            ),
            class_name="mt-3 flex flex-wrap items-center gap-2",
        ),
        title="Rules",
        aria_label="Rules",
    )
