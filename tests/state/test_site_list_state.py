"""The Dashboard's site list in its state (issue 26): the page, summary and query; bulk actions refused on the server to
a limited user, and done for an admin."""

from __future__ import annotations

import reflex as rx
from sqlmodel import select

import secdash.secdash  # noqa: F401
from secdash.models import Site
from secdash.services.reads import read_models
from secdash.state.dashboard import DashboardState, OverviewTab
from tests.factories import make_user, sign_in


def _substate(root, cls):
    return root.get_substate(cls.get_full_name().split("."))


async def _overview(session, role: str, count: int = 60):
    session.add_all(
        [
            Site(name=f"site {i:02d}", url=f"https://s{i}.example/", domain=f"s{i}.example", tags=["bulk"] if i < 30 else [])
            for i in range(count)
        ]
    )
    await session.commit()
    read_models.invalidate_all()
    await make_user(session, "ops@example.com", role=role)
    root = rx.State(_reflex_internal_init=True)
    state = _substate(root, DashboardState)
    state.auth_token = await sign_in(session, "ops@example.com")
    await DashboardState.event_handlers["load"].fn(state)
    return _substate(root, OverviewTab)


def _handler(name: str):
    return OverviewTab.event_handlers[name].fn


async def test_the_list_pages_filters_and_sorts_and_many_sites_show_no_cards_until_one_is_chosen(session):
    overview = await _overview(session, "limited")
    assert overview.sites_count == 60 and overview.list_range == "1–50 of 60" and len(overview.list_rows) == 50
    assert overview.sites == [] and not overview.all_cards  # 60 sites: the list, no chart per site
    assert [(p.label, p.count) for p in overview.list_summary] == [("ALERT", "0"), ("CHECKING", "60"), ("SECURE", "0")]
    await _handler("go_to_list_page")(overview, 2)
    assert overview.list_range == "51–60 of 60" and len(overview.list_rows) == 10
    await _handler("sort_list")(overview, "name")
    await _handler("sort_list")(overview, "name")  # the same header again: descending
    assert overview.list_rows[0].name == "site 59" and overview.list_columns[0].aria_sort == "descending"
    assert overview.list_page == 1  # a new order starts at the first page
    await _handler("set_list_search")(overview, "s12.example")
    assert [row.name for row in overview.list_rows] == ["site 12"]
    await _handler("clear_list_filters")(overview)
    await _handler("set_list_tag")(overview, "bulk")
    assert overview.list_matching == 30
    await _handler("choose_site")(overview, overview.list_rows[0].id)
    assert [card.name for card in overview.sites] == [overview.list_rows[0].name]  # its card, with its chart


async def test_a_limited_user_is_refused_bulk_actions_on_the_server(session):
    overview = await _overview(session, "limited")
    await _handler("select_all_matching_sites")(overview)  # selecting is harmless: acting is what the server checks
    assert overview.selected_count == 60
    for name in ("pause_selected", "resume_selected"):
        result = await _handler(name)(overview)
        assert "Only administrators" in str(result.args), name
    await _handler("ask_bulk_remove")(overview)
    result = await _handler("remove_selected")(overview)
    assert "Only administrators" in str(result.args)
    rows = list(await session.exec(select(Site)))
    assert len(rows) == 60 and not any(site.paused for site in rows)


async def test_an_admin_pauses_all_matching_then_removes_them_after_confirming(session):
    overview = await _overview(session, "admin")
    await _handler("set_list_tag")(overview, "bulk")
    await _handler("select_all_matching_sites")(overview)
    assert overview.selected_count == 30
    result = await _handler("pause_selected")(overview)
    assert "30 sites paused" in str(result.args)
    assert overview.selected_count == 0 and [(p.label, p.count) for p in overview.list_summary][-1] == ("PAUSED", "30")
    await _handler("toggle_selected")(overview, overview.list_rows[0].id)
    await _handler("toggle_selected")(overview, overview.list_rows[1].id)
    assert overview.selected_count == 2
    assert await _handler("remove_selected")(overview) is None  # not confirmed: nothing removed
    await _handler("ask_bulk_remove")(overview)
    result = await _handler("remove_selected")(overview)
    assert "2 sites removed" in str(result.args)
    assert overview.sites_count == 58 and len(list(await session.exec(select(Site)))) == 58


async def test_the_site_dialog_saves_tags_and_says_what_is_wrong_with_one(session, monkeypatch):
    from secdash.services.monitoring import sites

    async def resolves(host, port):
        return ["93.184.215.14"]

    monkeypatch.setattr(sites, "resolve", resolves)
    overview = await _overview(session, "admin", count=2)
    await _handler("open_site_dialog")(overview, 0)
    form = {"name": "Shop", "url": "https://shop.example/", "tags": "Prod, team:web, prod"}
    result = await _handler("save_site")(overview, form)
    assert "Site saved" in str(result.args)
    [shop] = [row for row in overview.list_rows if row.name == "Shop"]
    assert shop.tags == ["prod", "team:web"] and "prod" in overview.list_tags
    await _handler("choose_site")(overview, shop.id)  # a card of a small deployment: every site has one
    await _handler("open_site_dialog")(overview, shop.id)
    assert overview.site_form_tags == "prod, team:web"
    result = await _handler("save_site")(overview, form | {"tags": "bad tag"})
    assert "may only hold" in str(result.args) and overview.site_form_tags == "bad tag"  # what was typed is kept
