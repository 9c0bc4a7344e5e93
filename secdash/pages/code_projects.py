"""The project list of the Live Code Builder: each project and saved snapshot with its status, files, snapshots and
last change, and Open, Rename and Delete (Delete asks first). One column of rows that wrap on a phone."""

import reflex as rx

from secdash.components.cards import card
from secdash.components.focus import focus_return
from secdash.components.styles import BADGE as _BADGE
from secdash.components.styles import DANGER as _DANGER
from secdash.components.styles import FOCUS as _FOCUS
from secdash.components.styles import PRIMARY as _PRIMARY
from secdash.components.styles import QUIET as _QUIET
from secdash.state.code_projects import ProjectItem, ProjectListState

STATUS_CLASSES = (
    ("planning", "bg-blue-500/15 text-blue-300 border-blue-500/40"),
    ("building", "bg-yellow-500/15 text-yellow-300 border-yellow-500/40"),
    ("testing", "bg-purple-500/15 text-purple-300 border-purple-500/40"),
    ("complete", "bg-emerald-500/15 text-emerald-300 border-emerald-500/40"),
)
PROJECT_LIST_ID = "your-projects"  # the list's wrapper (pages/code_builder.py): focusable, the last place focus returns to
_OTHER_STATUS = f"{_BADGE} bg-slate-500/15 text-slate-300 border-slate-500/40"


def project_status_badge(status) -> rx.Component:
    return rx.el.span(
        status.upper(), class_name=rx.match(status, *[(k, f"{_BADGE} {v}") for k, v in STATUS_CLASSES], _OTHER_STATUS)
    )


def _rename_id(item: ProjectItem):
    return "rename-project-" + item.id.to_string()


def _delete_id(item: ProjectItem):
    return "delete-project-" + item.id.to_string()


def _rename_form(item: ProjectItem) -> rx.Component:
    return rx.el.div(
        rx.el.input(
            value=ProjectListState.rename_draft,
            on_change=ProjectListState.set_rename_draft,
            on_key_down=ProjectListState.rename_key,
            auto_focus=True,
            auto_complete="off",
            aria_label="New name for " + item.name,
            class_name="min-w-0 flex-1 basis-56 rounded-md border border-slate-700 bg-slate-950 px-3 py-1.5 "
            f"text-sm text-slate-100 {_FOCUS}",
        ),
        rx.el.button("Save name", on_click=ProjectListState.save_rename, type="button", class_name=_PRIMARY),
        rx.el.button("Cancel", on_click=ProjectListState.cancel_rename, type="button", class_name=_QUIET),
        class_name="flex flex-wrap items-center gap-2",
    )


def _delete_confirmation(item: ProjectItem) -> rx.Component:
    return rx.el.div(
        rx.el.p(
            "Delete ",
            rx.el.strong(item.name),
            "? Its files and build log are removed for good",
            rx.cond(item.is_snapshot, ".", "; its saved snapshots stay."),
            class_name="text-sm text-red-200",
        ),
        rx.el.div(
            rx.el.button(
                "Delete",
                on_click=ProjectListState.confirm_delete,
                type="button",
                class_name=_DANGER,
                aria_label="Confirm delete",
                auto_focus=True,
            ),
            rx.el.button("Cancel", on_click=ProjectListState.cancel_delete, type="button", class_name=_QUIET),
            class_name="flex flex-wrap gap-2",
        ),
        role="group",
        aria_label="Confirm delete",
        class_name="flex flex-col gap-2 rounded-md border border-red-500/50 bg-red-500/10 p-2",
    )


def _actions(item: ProjectItem) -> rx.Component:
    return rx.el.div(
        rx.cond(
            item.current,
            rx.el.span("Open now", class_name=f"{_BADGE} border-cyan-500/40 bg-cyan-500/15 text-cyan-200"),
            rx.el.button(
                rx.icon("folder-open", class_name="h-4 w-4"),
                "Open",
                on_click=ProjectListState.open_project(item.id),
                type="button",
                aria_label="Open " + item.name,
                class_name=_PRIMARY,
            ),
        ),
        rx.el.button(
            rx.icon("pencil", class_name="h-4 w-4"),
            "Rename",
            on_click=ProjectListState.start_rename(item.id),
            type="button",
            aria_label="Rename " + item.name,
            id=_rename_id(item),
            class_name=_QUIET,
        ),
        rx.el.button(
            rx.icon("trash-2", class_name="h-4 w-4"),
            "Delete",
            on_click=ProjectListState.ask_delete(item.id),
            type="button",
            aria_label="Delete " + item.name,
            id=_delete_id(item),
            class_name=_DANGER,
        ),
        class_name="flex flex-wrap items-center gap-2",
    )


def _item(item: ProjectItem) -> rx.Component:
    return rx.el.li(
        rx.el.div(
            rx.el.div(
                rx.el.div(
                    rx.el.span(item.name, class_name="min-w-0 break-words font-semibold text-slate-100"),
                    project_status_badge(item.status),
                    class_name="flex flex-wrap items-center gap-2",
                ),
                rx.el.p(
                    rx.cond(
                        item.is_snapshot,
                        rx.el.span(
                            rx.cond(item.snapshot_of > 0, "Snapshot of #" + item.snapshot_of.to_string(), "Snapshot"), " · "
                        ),
                        rx.el.span(item.snapshots, " · "),
                    ),
                    item.files,
                    " · Updated ",
                    item.updated,
                    class_name="text-xs text-slate-400",
                ),
                class_name="flex min-w-0 flex-col gap-1",
            ),
            _actions(item),
            class_name="flex flex-wrap items-center justify-between gap-2",
        ),
        # When the form or the confirmation goes, the keyboard goes on from the button that opened it.
        rx.cond(
            ProjectListState.renaming == item.id,
            focus_return(_rename_form(item), target=_rename_id(item), fallback=PROJECT_LIST_ID),
            rx.fragment(),
        ),
        rx.cond(
            ProjectListState.deleting == item.id,
            focus_return(_delete_confirmation(item), target=_delete_id(item), fallback=PROJECT_LIST_ID),
            rx.fragment(),
        ),
        class_name=rx.cond(
            item.current,
            "flex flex-col gap-2 rounded-lg border border-cyan-500/50 bg-cyan-950/20 p-3",
            "flex flex-col gap-2 rounded-lg border border-slate-800 bg-slate-950/40 p-3",
        ),
        data_testid="project-item",
    )


def project_list() -> rx.Component:
    """Loads when it appears and follows the user's projects until it goes."""
    return card(
        rx.cond(
            ProjectListState.items.length() > 0,
            rx.el.ul(rx.foreach(ProjectListState.items, _item), class_name="flex flex-col gap-2"),
            rx.el.p(
                rx.cond(
                    ProjectListState.loaded, "No projects yet: Build one, and Save keeps a snapshot of it.", "Loading projects..."
                ),
                class_name="text-sm text-slate-400",
            ),
        ),
        title="Your Projects",
        aria_label="Your projects",
        data_testid="project-list",
        on_mount=ProjectListState.load,
        on_unmount=ProjectListState.stop_following,
    )
