"""The floating Defense Command chat widget (bottom right of every signed-in page)."""

import reflex as rx

from secdash.components.chat import bubble, composer, streaming_bubble
from secdash.state.chat_widget import INPUT_ID, TOGGLE_ID, ChatWidgetState

# Escape anywhere in the panel closes it (through the toggle, so the server knows) and gives the focus back to the
# toggle that opened it; compiled into the bundle.
_ESCAPE_CLOSES = rx.Var(
    "((e) => { if (e.key !== 'Escape') return; e.preventDefault();"
    f" const toggle = document.getElementById('{TOGGLE_ID}'); if (toggle) {{ toggle.focus(); toggle.click(); }} }})"
)


def chat_widget() -> rx.Component:
    panel = rx.el.div(
        rx.el.div(
            rx.el.span(
                rx.icon("shield", class_name="w-4 h-4 text-cyan-300"),
                "Defense Command",
                class_name="flex items-center gap-2 font-semibold",
            ),
            rx.el.button(
                rx.icon("x", class_name="w-4 h-4"),
                on_click=[ChatWidgetState.toggle, rx.set_focus(TOGGLE_ID)],
                aria_label="Close chat",
                class_name="rounded p-1 hover:bg-slate-800",
            ),
            class_name="flex items-center justify-between border-b border-slate-800 px-3 py-2",
        ),
        rx.auto_scroll(
            rx.cond(
                (ChatWidgetState.lines.length() == 0) & ~ChatWidgetState.streaming,
                rx.el.p(
                    "Ask the defense assistant about threats, headers or incidents.",
                    class_name="p-4 text-center text-sm text-slate-400",
                ),
                rx.fragment(),
            ),
            rx.foreach(ChatWidgetState.lines, lambda line: bubble(line)),
            rx.cond(ChatWidgetState.streaming, streaming_bubble(ChatWidgetState.partial), rx.fragment()),
            class_name="flex flex-1 flex-col gap-2 overflow-y-auto p-3",
            tab_index=0,
            role="region",
            aria_label="Conversation",
        ),
        rx.el.div(
            composer(
                state=ChatWidgetState,
                busy=ChatWidgetState.streaming,
                can_send=ChatWidgetState.can_send,
                placeholder="Message defense command",
                stop=ChatWidgetState.stop,
                waiting=ChatWidgetState.streaming,
                input_id=INPUT_ID,
            ),
            class_name="border-t border-slate-800 p-3",
        ),
        # 600 px high as the spec says, but never taller or wider than the screen it opens on. While the phone
        # menu (components/shell.py, #mobile-menu) is open the panel steps aside: it would cover the menu.
        class_name="fixed bottom-24 right-3 z-50 flex h-[600px] max-h-[calc(100dvh-7rem)] w-[380px] "
        "max-w-[calc(100vw-1.5rem)] flex-col rounded-xl border border-slate-700 bg-slate-900 shadow-2xl sm:right-6 "
        "[body:has(#mobile-menu[open])_&]:hidden",
        id="defense-chat-panel",
        role="dialog",
        aria_label="Defense Command chat",
        custom_attrs={"onKeyDown": _ESCAPE_CLOSES},
    )
    return rx.fragment(
        rx.cond(ChatWidgetState.open, panel, rx.fragment()),
        rx.el.button(
            rx.cond(ChatWidgetState.open, rx.icon("x", class_name="w-6 h-6"), rx.icon("message-circle", class_name="w-6 h-6")),
            on_click=ChatWidgetState.toggle,
            aria_label=rx.cond(ChatWidgetState.open, "Close defense chat", "Open defense chat"),
            aria_expanded=rx.cond(ChatWidgetState.open, "true", "false"),
            aria_controls="defense-chat-panel",
            id=TOGGLE_ID,
            class_name="fixed bottom-6 right-6 z-50 flex h-14 w-14 items-center justify-center rounded-full bg-cyan-500 "
            "text-slate-950 shadow-lg hover:bg-cyan-400",
        ),
    )


def widget_closer() -> rx.Component:
    """In place of the widget on a page with its own chat: closes the widget when the page shows."""
    return rx.el.span(on_mount=ChatWidgetState.close, hidden=True)
