"""The add/edit site dialog of the Dashboard (admins) and its removal confirmation."""

import reflex as rx

from secdash.components.focus import dialog_content
from secdash.services.monitoring import site_tags
from secdash.state.dashboard import OverviewTab


def _remove_confirmation() -> rx.Component:
    """Remove asks first, naming the site; only "Remove site" removes it."""
    return rx.el.div(
        rx.el.p("Remove ", OverviewTab.site_form_name, "?", class_name="font-semibold text-red-300"),
        rx.el.p(
            "Monitoring stops and its check history is deleted. Its security events stay in the Problem Database.",
            class_name="text-sm text-slate-300",
        ),
        rx.el.div(
            rx.el.button(
                "Keep site",
                type="button",
                on_click=OverviewTab.keep_site,
                class_name="ml-auto rounded-md border border-slate-700 px-3 py-2",
            ),
            rx.el.button(
                "Remove site",
                type="button",
                on_click=OverviewTab.delete_site(OverviewTab.editing_site_id),
                class_name="rounded-md bg-red-600 px-3 py-2 font-semibold text-white hover:bg-red-500",
            ),
            class_name="flex gap-2",
        ),
        role="alert",
        class_name="mt-3 flex flex-col gap-2 rounded-md border border-red-500/50 bg-red-500/10 p-3",
    )


def site_dialog() -> rx.Component:
    return rx.dialog.root(
        dialog_content(
            rx.dialog.title(rx.cond(OverviewTab.editing_site_id > 0, "Edit site", "Add site")),
            rx.el.form(
                rx.el.label("Name", html_for="site-name", class_name="text-sm"),
                rx.el.input(
                    id="site-name",
                    name="name",
                    default_value=OverviewTab.site_form_name,
                    class_name="w-full rounded-md border border-slate-700 bg-slate-950 px-3 py-2",
                ),
                rx.el.label("URL (http or https)", html_for="site-url", class_name="text-sm"),
                rx.el.input(
                    id="site-url",
                    name="url",
                    default_value=OverviewTab.site_form_url,
                    class_name="w-full rounded-md border border-slate-700 bg-slate-950 px-3 py-2",
                ),
                rx.el.label(
                    rx.el.input(
                        type="checkbox",
                        name="allow_private",
                        default_checked=OverviewTab.site_form_allow_private,
                        key=OverviewTab.editing_site_id.to_string() + OverviewTab.site_form_allow_private.to_string(),
                    ),
                    " Allow a private or local address (only for hosts you own)",
                    class_name="flex items-center gap-2 text-sm text-slate-300",
                ),
                rx.el.div(
                    rx.el.div(
                        rx.el.label("Capacity (requests / min)", html_for="site-capacity", class_name="text-sm"),
                        rx.el.input(
                            id="site-capacity",
                            name="capacity_rpm",
                            input_mode="numeric",
                            placeholder="not set",
                            default_value=OverviewTab.site_form_capacity,
                            max_length=9,
                            class_name="w-full rounded-md border border-slate-700 bg-slate-950 px-3 py-2",
                        ),
                        class_name="flex min-w-0 flex-col gap-1",
                    ),
                    rx.el.div(
                        rx.el.label("Signup route", html_for="site-signup-route", class_name="text-sm"),
                        rx.el.input(
                            id="site-signup-route",
                            name="signup_route",
                            placeholder="/signup, /register, /join…",
                            default_value=OverviewTab.site_form_signup_route,
                            max_length=200,
                            class_name="w-full rounded-md border border-slate-700 bg-slate-950 px-3 py-2",
                        ),
                        class_name="flex min-w-0 flex-col gap-1",
                    ),
                    class_name="grid grid-cols-1 gap-2 sm:grid-cols-2",
                ),
                rx.el.p(
                    "Live Traffic measures the site against its capacity and counts a POST to its signup route as a "
                    "signup (empty: the usual routes).",
                    class_name="text-xs text-slate-400",
                ),
                rx.el.label("Tags (comma-separated)", html_for="site-tags", class_name="text-sm"),
                rx.el.input(
                    id="site-tags",
                    name="tags",
                    placeholder="production, eu-west, team:web",
                    default_value=OverviewTab.site_form_tags,
                    max_length=400,
                    class_name="w-full rounded-md border border-slate-700 bg-slate-950 px-3 py-2",
                ),
                rx.el.p(
                    f"At most {site_tags.MAX_TAGS} tags of up to {site_tags.MAX_TAG_LENGTH} characters: {site_tags.ALLOWED}.",
                    class_name="text-xs text-slate-400",
                ),
                rx.cond(
                    OverviewTab.confirm_remove,
                    _remove_confirmation(),
                    rx.el.div(
                        rx.cond(
                            OverviewTab.editing_site_id > 0,
                            rx.el.button(
                                "Remove",
                                type="button",
                                on_click=OverviewTab.ask_remove_site,
                                class_name="rounded-md border border-red-500/50 px-3 py-2 text-red-300",
                            ),
                            rx.fragment(),
                        ),
                        rx.el.button(
                            "Cancel",
                            type="button",
                            on_click=OverviewTab.close_site_dialog,
                            class_name="ml-auto rounded-md border border-slate-700 px-3 py-2",
                        ),
                        rx.el.button("Save", type="submit", class_name="rounded-md bg-cyan-500 px-3 py-2 text-slate-950"),
                        class_name="mt-3 flex gap-2",
                    ),
                ),
                on_submit=OverviewTab.save_site,
                class_name="flex flex-col gap-2",
            ),
        ),
        open=OverviewTab.site_dialog_open,
        on_open_change=lambda _open: OverviewTab.close_site_dialog(),
    )
