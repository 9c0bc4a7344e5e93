"""The prompt box of the Live Code Builder and the HTML artifacts: a label, the textarea (its text and keystrokes
go to the state's PromptComposer handlers: Ctrl/Cmd+Enter sends), "Ctrl+Enter to send", a Stop button while the
server says the work runs, and the send button (disabled unless the state's `can_send`)."""

from typing import Any

import reflex as rx

from secdash.components.cards import card
from secdash.components.styles import DANGER as _DANGER
from secdash.components.styles import FOCUS as _FOCUS
from secdash.components.styles import PRIMARY as _PRIMARY


def prompt_box(
    state: Any,
    *,
    field_id: str,
    label: Any,
    placeholder: Any,
    running: Any,
    on_stop: Any,
    send_icon: str,
    send_label: Any,
    stop_props: dict[str, str] | None = None,
) -> rx.Component:
    """`state` mixes in PromptComposer and has `submit` and `can_send`; `field_id` is the textarea's id and test id
    (the send button's test id is its prefix with "-send"); `running` shows Stop (calling `on_stop`)."""
    prefix = field_id.removesuffix("-prompt")
    return card(
        rx.el.label(label, html_for=field_id, class_name="mb-1 block text-sm text-slate-300"),
        # Buffered in the browser (react-debounce-input), as the chat composers are: a controlled box re-rendered
        # from the server's copy lost what was typed during a round trip on a busy server. Enter (Ctrl+Enter sends)
        # and leaving the box (a click on the send button) send the typed text first.
        rx.debounce_input(
            rx.el.textarea(
                id=field_id,
                value=state.prompt,
                on_change=state.set_prompt,
                on_key_down=state.key_down,
                placeholder=placeholder,
                class_name="min-h-[6rem] w-full resize-y rounded-md border border-slate-700 bg-slate-950 p-2 text-sm "
                f"text-slate-100 {_FOCUS}",
                data_testid=field_id,
            ),
            debounce_timeout=150,
            force_notify_by_enter=True,
            force_notify_on_blur=True,
        ),
        rx.el.div(
            rx.el.span("Ctrl+Enter to send", class_name="text-xs text-slate-400"),
            rx.cond(
                running,
                rx.el.button(
                    rx.icon("square", class_name="h-4 w-4"),
                    "Stop",
                    on_click=on_stop,
                    type="button",
                    class_name=_DANGER,
                    **(stop_props or {}),
                ),
                rx.fragment(),
            ),
            rx.el.button(
                rx.icon(send_icon, class_name="h-4 w-4"),
                send_label,
                on_click=state.submit,
                type="button",
                disabled=~state.can_send,
                class_name=_PRIMARY,
                data_testid=f"{prefix}-send",
            ),
            class_name="mt-2 flex items-center justify-end gap-2 [&>span]:mr-auto",
        ),
    )
