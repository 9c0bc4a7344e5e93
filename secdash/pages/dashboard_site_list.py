"""The Dashboard's site list: the status summary, search and filters, the sortable table (stacked rows below md),
pages, and the selection with its bulk actions (admins). Clicking a site opens its card (pages/dashboard_overview.py)."""

import reflex as rx

from secdash.pages.site_list_bulk import BUTTON, bulk_bar
from secdash.state.auth import AuthState
from secdash.state.dashboard import OverviewTab
from secdash.state.site_list_views import ColumnView, SiteListRowView, SummaryPartView

FIELD = "rounded-md border border-slate-700 bg-slate-950 px-2 py-1.5 text-sm text-slate-100"
STATUS_CHOICES = (
    ("", "All statuses"),
    ("critical", "ALERT"),
    ("warning", "CHECKING"),
    ("secure", "SECURE"),
    ("paused", "PAUSED"),
)
GRADE_CHOICES = (("", "All grades"), ("A", "A"), ("B", "B"), ("C", "C"), ("D", "D"), ("F", "F"), ("none", "No grade"))
SORT_CHOICES = (
    ("status", "Status"),
    ("name", "Site"),
    ("grade", "Grade"),
    ("response", "Response"),
    ("tls", "TLS"),
    ("checked", "Last check"),
    ("problems", "Problems"),
)
NAME = "font-semibold text-cyan-200 hover:underline [overflow-wrap:anywhere]"
STATUS_TEXT = {
    "critical": "text-red-300",
    "warning": "text-amber-300",
    "secure": "text-emerald-300",
    "paused": "text-slate-300",
}


def _status_class(status, base: str):
    return rx.match(status, *[(key, f"{base} {text}") for key, text in STATUS_TEXT.items()], f"{base} text-amber-300")


def _summary_part(part: SummaryPartView) -> rx.Component:
    return rx.el.button(
        part.count,
        " ",
        part.label,
        on_click=OverviewTab.filter_status(part.status),
        aria_pressed=part.active,
        title="Show only these sites (again: show all)",
        class_name=rx.cond(
            part.active,
            _status_class(part.status, "rounded px-1 font-bold underline decoration-2 underline-offset-4"),
            _status_class(part.status, "rounded px-1 font-semibold hover:underline"),
        ),
        data_testid="status-summary-part",
    )


def status_summary() -> rx.Component:
    """ "3 ALERT · 12 CHECKING · 985 SECURE" (and "N PAUSED"): each part filters the list to its status."""
    return rx.el.nav(
        rx.foreach(
            OverviewTab.list_summary,
            lambda part, index: rx.fragment(
                rx.cond(
                    index > 0, rx.el.span(" · ", class_name="whitespace-pre text-slate-400", aria_hidden="true"), rx.fragment()
                ),
                _summary_part(part),
            ),
        ),
        aria_label="Sites by status",
        class_name="flex flex-wrap items-center gap-1 text-sm",
        data_testid="status-summary",
    )


def _select(label: str, value, on_change, choices, testid: str) -> rx.Component:
    return rx.el.label(
        rx.el.span(label, class_name="sr-only"),
        rx.el.select(
            *[rx.el.option(text, value=key) for key, text in choices],
            value=value,
            on_change=on_change,
            class_name=FIELD,
            data_testid=testid,
        ),
    )


def _toolbar() -> rx.Component:
    return rx.el.div(
        rx.el.label(
            rx.el.span("Search sites", class_name="sr-only"),
            rx.debounce_input(
                rx.el.input(
                    type="search",
                    value=OverviewTab.list_search,
                    on_change=OverviewTab.set_list_search,
                    placeholder="Search name or host",
                    auto_complete="off",
                    class_name=FIELD + " w-full",
                    data_testid="site-search",
                ),
                debounce_timeout=50,  # a keystroke costs the server a few ms: wait only for a burst of typing
                force_notify_by_enter=True,
            ),
            class_name="min-w-0 flex-1 basis-40",
        ),
        _select("Status", OverviewTab.list_status, OverviewTab.set_list_status, STATUS_CHOICES, "status-filter"),
        _select("Grade", OverviewTab.list_grade, OverviewTab.set_list_grade, GRADE_CHOICES, "grade-filter"),
        rx.el.label(
            rx.el.span("Tag", class_name="sr-only"),
            rx.el.select(
                rx.el.option("All tags", value=""),
                rx.foreach(OverviewTab.list_tags, lambda tag: rx.el.option(tag, value=tag)),
                value=OverviewTab.list_tag,
                on_change=OverviewTab.set_list_tag,
                class_name=FIELD,
                data_testid="tag-filter",
            ),
        ),
        rx.el.label(  # the column headers sort on wide screens; stacked rows have no headers
            rx.el.span("Sort by", class_name="sr-only"),
            rx.el.select(
                *[rx.el.option(f"Sort: {text}", value=key) for key, text in SORT_CHOICES],
                value=OverviewTab.list_sort,
                on_change=OverviewTab.sort_list,
                class_name=FIELD,
            ),
            class_name="md:hidden",
        ),
        rx.el.button("Clear filters", type="button", on_click=OverviewTab.clear_list_filters, class_name=BUTTON),
        rx.cond(  # the table's header checkbox, for the stacked rows
            AuthState.is_admin,
            rx.el.button(
                rx.cond(OverviewTab.page_selected, "Unselect page", "Select page"),
                type="button",
                on_click=OverviewTab.toggle_page_selected,
                class_name=BUTTON + " md:hidden",
            ),
            rx.fragment(),
        ),
        class_name="flex flex-wrap items-center gap-2",
        role="search",
        aria_label="Filter sites",
    )


def _checkbox(row: SiteListRowView) -> rx.Component:
    return rx.cond(
        AuthState.is_admin,
        rx.el.input(
            type="checkbox",
            checked=row.selected,
            on_change=lambda _value: OverviewTab.toggle_selected(row.id),
            aria_label="Select " + row.name,
            class_name="h-4 w-4",
        ),
        rx.fragment(),
    )


def _status(row: SiteListRowView) -> rx.Component:
    return rx.el.span(row.status_label, class_name=_status_class(row.status, "text-xs font-bold"))


def _tags(row: SiteListRowView) -> rx.Component:
    return rx.el.span(
        rx.foreach(
            row.tags,
            lambda tag: rx.el.span(
                tag, class_name="rounded-full border border-slate-700 bg-slate-800/60 px-1.5 text-[10px] text-slate-300"
            ),
        ),
        class_name="inline-flex flex-wrap gap-1",
    )


def _name(row: SiteListRowView) -> rx.Component:
    return rx.el.div(
        rx.cond(
            OverviewTab.all_cards,
            # A small deployment shows every card below the list: the name leads to its card.
            rx.el.a(
                row.name,
                href="#site-card-" + row.id.to_string(),
                title="Go to its card: chart, header tests, edit",
                class_name=NAME,
            ),
            rx.el.button(
                row.name,
                type="button",
                on_click=OverviewTab.choose_site(row.id),
                title="Open its card: chart, header tests, edit",
                class_name="text-left " + NAME,
            ),
        ),
        rx.el.div(
            rx.el.span(row.domain, class_name="[overflow-wrap:anywhere]"),
            _tags(row),
            class_name="flex flex-wrap items-center gap-x-2 gap-y-0.5 text-xs text-slate-400",
        ),
        class_name="min-w-0",
    )


def _table_row(row: SiteListRowView) -> rx.Component:
    cell = "px-2 py-1.5 align-top"
    return rx.el.tr(
        rx.cond(AuthState.is_admin, rx.el.td(_checkbox(row), class_name=cell), rx.fragment()),
        rx.el.td(_name(row), class_name=cell + " min-w-[8rem]"),
        rx.el.td(_status(row), class_name=cell),
        rx.el.td(row.grade, class_name=cell + " font-bold"),
        rx.el.td(row.response, class_name=cell + " whitespace-nowrap"),
        rx.el.td(row.tls, class_name=cell + " whitespace-nowrap"),
        rx.el.td(row.checked, class_name=cell + " min-w-[5.5rem]"),  # date and time may take two lines
        rx.el.td(row.problems, class_name=cell + " text-center"),
        class_name=rx.cond(row.selected, "bg-cyan-500/10", "border-t border-slate-800 hover:bg-slate-800/40"),
        data_testid="site-list-row",
    )


def _header(column: ColumnView) -> rx.Component:
    return rx.el.th(
        rx.el.button(
            column.label,
            rx.el.span(column.arrow, aria_hidden="true", class_name="ml-1 text-cyan-300"),
            type="button",
            on_click=OverviewTab.sort_list(column.key),
            class_name="inline-flex items-center font-semibold hover:text-slate-100",
        ),
        aria_sort=column.aria_sort,
        scope="col",
        class_name="px-2 py-1.5 text-left",
    )


def _table() -> rx.Component:
    return rx.el.table(
        rx.el.thead(
            rx.el.tr(
                rx.cond(
                    AuthState.is_admin,
                    rx.el.th(
                        rx.el.input(
                            type="checkbox",
                            checked=OverviewTab.page_selected,
                            on_change=lambda _value: OverviewTab.toggle_page_selected(),
                            aria_label="Select the sites of this page",
                            class_name="h-4 w-4",
                        ),
                        scope="col",
                        class_name="px-2 py-1.5",
                    ),
                    rx.fragment(),
                ),
                rx.foreach(OverviewTab.list_columns, _header),
                class_name="text-xs text-slate-400",
            )
        ),
        rx.el.tbody(rx.foreach(OverviewTab.list_rows, _table_row)),
        class_name="hidden w-full text-sm text-slate-300 md:table",
        data_testid="site-table",
    )


def _stacked_row(row: SiteListRowView) -> rx.Component:
    item = "flex flex-col"
    return rx.el.li(
        rx.el.div(
            _checkbox(row),
            _name(row),
            rx.el.span(_status(row), class_name="ml-auto shrink-0"),
            class_name="flex items-start gap-2",
        ),
        rx.el.dl(
            rx.el.div(
                rx.el.dt("Grade", class_name="text-slate-400"), rx.el.dd(row.grade, class_name="font-bold"), class_name=item
            ),
            rx.el.div(rx.el.dt("Response", class_name="text-slate-400"), rx.el.dd(row.response), class_name=item),
            rx.el.div(rx.el.dt("TLS", class_name="text-slate-400"), rx.el.dd(row.tls), class_name=item),
            rx.el.div(rx.el.dt("Problems", class_name="text-slate-400"), rx.el.dd(row.problems), class_name=item),
            class_name="mt-1 grid grid-cols-4 gap-1 text-xs text-slate-300",
        ),
        rx.el.p("Last check ", row.checked, class_name="mt-1 text-xs text-slate-400"),
        class_name=rx.cond(
            row.selected, "rounded-md border border-cyan-500/40 bg-cyan-500/10 p-2", "rounded-md border border-slate-800 p-2"
        ),
        data_testid="site-list-item",
    )


def _pager() -> rx.Component:
    return rx.el.div(
        rx.el.span(
            OverviewTab.list_range, class_name="text-sm text-slate-300", data_testid="site-list-range", aria_live="polite"
        ),
        rx.el.div(
            rx.el.button(
                "Previous",
                type="button",
                on_click=OverviewTab.go_to_list_page(OverviewTab.list_page - 1),
                disabled=OverviewTab.list_page <= 1,
                class_name=BUTTON,
            ),
            rx.el.span("Page ", OverviewTab.list_page, " of ", OverviewTab.list_pages, class_name="text-xs text-slate-400"),
            rx.el.button(
                "Next",
                type="button",
                on_click=OverviewTab.go_to_list_page(OverviewTab.list_page + 1),
                disabled=OverviewTab.list_page >= OverviewTab.list_pages,
                class_name=BUTTON,
            ),
            class_name="flex items-center gap-2",
        ),
        class_name="flex flex-wrap items-center justify-between gap-2",
        aria_label="Pages of the site list",
        role="navigation",
    )


def site_list(chosen: rx.Component) -> rx.Component:
    """The list; `chosen` (the chosen site's card) shows between its toolbar and its rows."""
    return rx.el.div(
        status_summary(),
        _toolbar(),
        bulk_bar(),
        chosen,
        rx.cond(
            OverviewTab.list_rows.length() > 0,
            rx.fragment(
                rx.el.div(_table(), class_name="min-w-0 overflow-x-auto"),
                rx.el.ul(rx.foreach(OverviewTab.list_rows, _stacked_row), class_name="flex flex-col gap-2 md:hidden"),
            ),
            rx.el.p("No site matches.", class_name="text-sm text-slate-400"),
        ),
        _pager(),
        class_name="flex min-w-0 flex-col gap-3",
        data_testid="site-list",
    )
