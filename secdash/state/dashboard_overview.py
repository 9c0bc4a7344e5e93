"""The Dashboard's first tab: figures, the site list (summary, search, filters, sort, pages, bulk actions), the cards
with charts (every site in a small deployment, else the chosen one), AI activity, alerts; the site add/edit dialog.

The list's rows are one shared read (read_models.site_list_rows); every change of the query filters, sorts and pages
them in memory (services/reads/site_list.filter_sort_page) and sends only the page shown.
"""

from __future__ import annotations

from typing import Any

from secdash.models import UserPublic
from secdash.services.errors import DomainError
from secdash.services.monitoring import site_bulk, site_tags, sites
from secdash.services.reads import page_reads, site_list
from secdash.services.scoped import in_session
from secdash.services.traffic import site_settings
from secdash.state.base import protected
from secdash.state.browser_actions import toast
from secdash.state.dashboard_base import DashboardState, failed_toast
from secdash.state.dashboard_views import ActivityView, EventView, SiteView, activity_view, event_view, site_view
from secdash.state.site_list_views import (
    ColumnView,
    SiteListRowView,
    SummaryPartView,
    bulk_outcome_text,
    column_views,
    list_row_view,
    range_text,
    summary_views,
)
from secdash.state.traffic_views import rate_text

MAX_SELECTED = site_bulk.MAX_BULK


class OverviewTab(DashboardState):
    """The Dashboard tab: figures, sites, AI activity, alerts; and the site add/edit dialog (admins)."""

    sites: list[SiteView] = []  # the cards with charts (site_list.CARDS_MAX_SITES, or the chosen site)
    sites_count: int = 0
    threats_blocked: int = 0
    activities: list[ActivityView] = []
    alerts: list[EventView] = []
    active_alerts: int = 0  # every open (unresolved) event, not the size of the 5-row list
    requests_per_minute: int = 0
    active_clients: int = 0
    bandwidth: str = "0 B/s"
    user_clean: int = 0
    user_suspicious: int = 0
    user_blocked: int = 0
    # The site list: the page shown and the query that chose it
    list_rows: list[SiteListRowView] = []
    list_summary: list[SummaryPartView] = []
    list_columns: list[ColumnView] = column_views("status", False)
    list_tags: list[str] = []
    list_range: str = "0 of 0"
    list_matching: int = 0
    list_page: int = 1
    list_pages: int = 1
    list_search: str = ""
    list_status: str = ""
    list_grade: str = ""
    list_tag: str = ""
    list_sort: str = "status"
    list_descending: bool = False
    all_cards: bool = True  # a small deployment: every site is a card too
    chosen_site_id: int = 0
    # Selection (admins; the service checks): chosen ids, or every site matching the filter
    selected_ids: list[int] = []
    select_all_matching: bool = False
    selected_count: int = 0
    page_selected: bool = False  # every row of the page shown is selected (the header's checkbox)
    confirm_bulk_remove: bool = False
    bulk_busy: bool = False
    _matching_ids: tuple[int, ...] = ()
    # Site editing (admins)
    site_dialog_open: bool = False
    editing_site_id: int = 0
    site_form_name: str = ""
    site_form_url: str = ""
    site_form_allow_private: bool = False
    site_form_capacity: str = ""
    site_form_signup_route: str = ""
    site_form_tags: str = ""
    confirm_remove: bool = False  # Remove asks first; only "Remove site" then removes

    def _read_filters(self) -> dict[str, Any] | None:
        return {"chosen_site": self.chosen_site_id}

    def _apply_reads(self, reads: dict[str, Any]) -> None:
        if "site_list" in reads:
            self._show_list(reads["site_list"])
        if "site_cards" in reads:
            self.sites = [site_view(site, history) for site, history in reads["site_cards"]]
        if "activities" in reads:
            self.activities = [activity_view(a) for a in reads["activities"]]
        if "alerts" in reads:
            self.alerts = [event_view(e) for e in reads["alerts"]]
            self.active_alerts = reads["open_alerts"]
            self.threats_blocked = reads["threats_blocked"]
        if "traffic_live" in reads:
            live = reads["traffic_live"]
            self.requests_per_minute = live["requestsPerMinute"]
            self.active_clients = live["activeClients"]
            self.bandwidth = rate_text(live["bytesPerSecond"])
        if "user_scan" in reads:
            counts = reads["user_scan"]["counts"]
            self.user_clean, self.user_suspicious, self.user_blocked = counts["clean"], counts["suspicious"], counts["blocked"]

    # --- the site list -----------------------------------------------------------------------------------------

    def _query(self) -> site_list.SiteQuery:
        return site_list.SiteQuery(
            search=self.list_search,
            status=self.list_status,
            grade=self.list_grade,
            tag=self.list_tag,
            sort=self.list_sort,
            descending=self.list_descending,
            page=self.list_page,
        )

    def _show_list(self, data: site_list.SiteRows) -> None:
        """The page of the list the query asks for, from the shared rows (in memory: no query)."""
        page = site_list.filter_sort_page(data.rows, self._query())
        self.sites_count = len(data.rows)
        self.all_cards = self.sites_count <= site_list.CARDS_MAX_SITES
        self.list_page, self.list_pages, self.list_matching = page.page, page.pages, page.total
        self.list_range = range_text(page)
        self._matching_ids = page.matching_ids
        chosen = set(self.selected_ids)
        self.list_rows = [list_row_view(row, self.select_all_matching or row.id in chosen) for row in page.rows]
        self.page_selected = bool(self.list_rows) and all(row.selected for row in self.list_rows)
        self.list_summary = summary_views(site_list.status_summary(data.counts), self.list_status)
        self.list_columns = column_views(self.list_sort, self.list_descending)
        self.list_tags = list(data.tags)
        if self.list_tag and self.list_tag not in data.tags:
            self.list_tag = ""
        if self.select_all_matching:
            self.selected_count = page.total
        else:
            known = {row.id for row in data.rows}
            self.selected_ids = [site_id for site_id in self.selected_ids if site_id in known]
            self.selected_count = len(self.selected_ids)

    async def _reload_list(self, *, first_page: bool = False) -> None:
        if first_page:
            self.list_page = 1
            self.select_all_matching = False  # "all matching" named the old filter's sites
        self._apply_reads(await page_reads.dashboard_reads({"site_list"}))

    async def _reload_sites(self) -> None:
        self._apply_reads(await page_reads.dashboard_reads({"site_list", "site_cards"}, self._read_filters()))

    @protected(reads_only=True)
    async def set_list_search(self, value: str):
        self.list_search = str(value or "")[: site_list.MAX_SEARCH_LENGTH]
        await self._reload_list(first_page=True)
        return None

    @protected(reads_only=True)
    async def filter_status(self, status: str):
        """A part of the summary: show the sites of that status (the same part again shows all)."""
        status = str(status or "")
        self.list_status = "" if status == self.list_status else status
        await self._reload_list(first_page=True)
        return None

    @protected(reads_only=True)
    async def set_list_status(self, status: str):
        self.list_status = str(status or "")[:20]
        await self._reload_list(first_page=True)
        return None

    @protected(reads_only=True)
    async def set_list_grade(self, grade: str):
        self.list_grade = str(grade or "")[:8]
        await self._reload_list(first_page=True)
        return None

    @protected(reads_only=True)
    async def set_list_tag(self, tag: str):
        self.list_tag = str(tag or "").strip().lower()[: site_tags.MAX_TAG_LENGTH]
        await self._reload_list(first_page=True)
        return None

    @protected(reads_only=True)
    async def clear_list_filters(self):
        self.list_search = self.list_status = self.list_grade = self.list_tag = ""
        await self._reload_list(first_page=True)
        return None

    @protected(reads_only=True)
    async def sort_list(self, column: str):
        """A column header: sort by it (the same header again reverses the order)."""
        column = str(column or "")
        if column not in site_list.SORTS:
            return None
        self.list_descending = (not self.list_descending) if column == self.list_sort else False
        self.list_sort = column
        await self._reload_list(first_page=True)
        return None

    @protected(reads_only=True)
    async def go_to_list_page(self, page: int):
        try:
            self.list_page = max(1, int(page))
        except (TypeError, ValueError):
            return None
        await self._reload_list()
        return None

    @protected(reads_only=True)
    async def choose_site(self, site_id: int):
        """A row of the list: its card (with its chart, header tests, edit) shows below the list."""
        try:
            self.chosen_site_id = int(site_id)
        except (TypeError, ValueError):
            return None
        self._apply_reads(await page_reads.dashboard_reads({"site_cards"}, self._read_filters()))
        return None  # the card takes the focus when it shows (pages/dashboard_overview.py), which scrolls to it

    @protected(reads_only=True)
    async def close_chosen_site(self):
        self.chosen_site_id = 0
        self._apply_reads(await page_reads.dashboard_reads({"site_cards"}, self._read_filters()))
        return None

    # --- selection and bulk actions ----------------------------------------------------------------------------

    @protected(reads_only=True)
    async def toggle_selected(self, site_id: int):
        try:
            wanted = int(site_id)
        except (TypeError, ValueError):
            return None
        if self.select_all_matching:  # narrowing "all matching" by one: the matching ids, less this one
            self.selected_ids = [i for i in self._matching_ids if i != wanted][:MAX_SELECTED]
            self.select_all_matching = False
        elif wanted in self.selected_ids:
            self.selected_ids = [i for i in self.selected_ids if i != wanted]
        elif len(self.selected_ids) < MAX_SELECTED:
            self.selected_ids = [*self.selected_ids, wanted]
        await self._reload_list()
        return None

    @protected(reads_only=True)
    async def toggle_page_selected(self):
        """The header's checkbox: select the page's rows (or clear them when all are selected)."""
        page_ids = [row.id for row in self.list_rows]
        if self.select_all_matching or all(row.selected for row in self.list_rows):
            self.select_all_matching = False
            self.selected_ids = [i for i in self.selected_ids if i not in page_ids]
        else:
            self.selected_ids = list(dict.fromkeys([*self.selected_ids, *page_ids]))[:MAX_SELECTED]
        await self._reload_list()
        return None

    @protected(reads_only=True)
    async def select_all_matching_sites(self):
        self.select_all_matching, self.selected_ids = True, []
        await self._reload_list()
        return None

    @protected(reads_only=True)
    async def clear_selection(self):
        self.select_all_matching, self.selected_ids, self.confirm_bulk_remove = False, [], False
        await self._reload_list()
        return None

    def _chosen_ids(self) -> list[int]:
        return list(self._matching_ids) if self.select_all_matching else list(self.selected_ids)

    async def _bulk(self, user: UserPublic, action: str):
        ids = self._chosen_ids()
        if not ids or self.bulk_busy:
            return None
        self.bulk_busy = True
        try:
            if action == "remove":
                outcome = await in_session(site_bulk.delete_sites, actor=user, site_ids=ids)
            else:
                outcome = await in_session(site_bulk.set_paused, actor=user, site_ids=ids, paused=action == "pause")
        except DomainError as exc:
            return failed_toast(exc)
        finally:
            self.bulk_busy, self.confirm_bulk_remove = False, False
        verb = {"pause": "paused", "resume": "resumed", "remove": "removed"}[action]
        self.select_all_matching, self.selected_ids = False, []
        await self._reload_sites()
        text = bulk_outcome_text(verb, outcome.changed, outcome.unchanged, outcome.missing)
        return toast.success(f"Monitoring {verb}" if action != "remove" else "Sites removed", description=text)

    @protected
    async def pause_selected(self, user: UserPublic):
        """Pause monitoring of the chosen sites (admins: the service refuses anyone else)."""
        return await self._bulk(user, "pause")

    @protected
    async def resume_selected(self, user: UserPublic):
        return await self._bulk(user, "resume")

    @protected(reads_only=True)
    async def ask_bulk_remove(self):
        """Remove asks first, naming how many sites; only "Remove N sites" removes them."""
        self.confirm_bulk_remove = bool(self._chosen_ids())
        return None

    @protected(reads_only=True)
    async def keep_selected(self):
        self.confirm_bulk_remove = False
        return None

    @protected
    async def remove_selected(self, user: UserPublic):
        if not self.confirm_bulk_remove:  # only the confirmation's button removes
            return None
        return await self._bulk(user, "remove")

    # --- the add/edit dialog -----------------------------------------------------------------------------------

    @protected(reads_only=True)
    async def open_site_dialog(self, site_id: int):
        """Open the add (site_id 0) or edit form."""
        site = next((s for s in self.sites if s.id == int(site_id)), None)
        self.editing_site_id = site.id if site else 0
        self.site_form_name = site.name if site else ""
        self.site_form_url = site.url if site else "https://"
        self.site_form_allow_private = site.allow_private if site else False
        self.site_form_capacity = site.capacity_rpm if site else ""
        self.site_form_signup_route = site.signup_route if site else ""
        self.site_form_tags = ", ".join(site.tags) if site else ""
        self.site_dialog_open, self.confirm_remove = True, False
        return None

    @protected(reads_only=True)
    async def close_site_dialog(self):
        self.site_dialog_open, self.confirm_remove = False, False
        return None

    @protected(reads_only=True)
    async def ask_remove_site(self):
        """Remove was pressed: the dialog asks before anything is removed."""
        self.confirm_remove = self.editing_site_id > 0
        return None

    @protected(reads_only=True)
    async def keep_site(self):
        self.confirm_remove = False
        return None

    @protected
    async def save_site(self, user: UserPublic, form: dict):
        name, url = str(form.get("name", "")), str(form.get("url", ""))
        allow_private = bool(form.get("allow_private"))
        capacity, route = str(form.get("capacity_rpm", "")).strip()[:20], str(form.get("signup_route", ""))[:500]
        tags_text = str(form.get("tags", ""))[:1000]
        try:
            tags = site_tags.split_tags(tags_text)
            traffic = site_settings.clean(int(capacity) if capacity.isdigit() else capacity or None, route)
            if self.editing_site_id:
                await in_session(
                    sites.update_site,
                    actor=user,
                    site_id=self.editing_site_id,
                    name=name,
                    url=url,
                    allow_private=allow_private,
                    traffic=traffic,
                    tags=tags,
                )
            else:
                await in_session(
                    sites.create_site, actor=user, name=name, url=url, allow_private=allow_private, traffic=traffic, tags=tags
                )
        except DomainError as exc:
            # keep what was typed
            self.site_form_name, self.site_form_url, self.site_form_allow_private = name, url, allow_private
            self.site_form_capacity, self.site_form_signup_route, self.site_form_tags = capacity, route, tags_text
            return failed_toast(exc)
        self.site_dialog_open = False
        await self._reload_sites()
        return toast.success("Site saved", description="It is being probed now; its figures show in a moment.")

    @protected
    async def delete_site(self, user: UserPublic, site_id: int):
        if not self.confirm_remove:  # only the confirmation's button removes
            return None
        try:
            await in_session(sites.delete_site, actor=user, site_id=int(site_id))
        except DomainError as exc:
            self.confirm_remove = False
            return failed_toast(exc)
        self.site_dialog_open, self.confirm_remove = False, False
        await self._reload_sites()
        return toast.success("Site removed")
