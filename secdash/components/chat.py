"""Chat pieces shared by the widget, the Defense Command page and the Center."""

from __future__ import annotations

import reflex as rx

from secdash.components.markdown import SafeMarkdown
from secdash.state.chat_stream import MAX_MESSAGE_LENGTH, ChatLine

COUNTER_FROM = MAX_MESSAGE_LENGTH * 3 // 4  # the length counter appears near the limit

THREAT_CLASSES = (
    ("low", "bg-emerald-500/15 text-emerald-300 border-emerald-500/40"),
    ("medium", "bg-amber-500/15 text-amber-300 border-amber-500/40"),
    ("high", "bg-orange-500/15 text-orange-300 border-orange-500/40"),
    ("critical", "bg-red-500/20 text-red-300 border-red-500/50"),
)
_BADGE = "inline-flex rounded border px-1.5 py-0.5 text-[10px] font-bold uppercase tracking-wide"


def threat_badge(level) -> rx.Component:
    return rx.cond(
        level != "",
        rx.el.span(
            level,
            class_name=rx.match(level, *[(k, f"{_BADGE} {v}") for k, v in THREAT_CLASSES], _BADGE),
            data_testid="threat-badge",
        ),
        rx.fragment(),
    )


def engine_label(engine) -> rx.Component:
    """Which engine answered: the offline knowledge base or a configured model."""
    return rx.cond(
        engine == "offline",
        rx.el.span("offline engine", class_name="text-[10px] text-slate-400"),
        rx.cond(engine != "", rx.el.span(engine, class_name="text-[10px] text-slate-400"), rx.fragment()),
    )


def safe_markdown(text) -> rx.Component:
    """Model output as Markdown with raw HTML shown as text (no rehype-raw): a reply that quotes
    attacker HTML cannot run script in the app's origin. javascript:/data: links lose their href.
    Loaded when the first reply shows (components/markdown.py), not with the page."""
    return SafeMarkdown.create(text=text, class_name="prose prose-invert prose-sm max-w-none")


def bubble(line: ChatLine, show_threat: bool = False) -> rx.Component:
    agent = line.sender == "agent"
    return rx.el.div(
        rx.el.div(
            rx.cond(agent, safe_markdown(line.text), rx.el.p(line.text, class_name="whitespace-pre-wrap")),
            rx.el.div(
                rx.el.span(
                    line.time,
                    class_name=rx.cond(agent, "font-mono text-[10px] text-slate-400", "font-mono text-[10px] text-cyan-50"),
                ),
                threat_badge(line.threat_level) if show_threat else rx.fragment(),
                engine_label(line.engine),
                class_name="mt-1 flex items-center gap-2",
            ),
            class_name=rx.cond(
                agent,
                "max-w-[85%] rounded-lg bg-slate-800 px-3 py-2 text-sm text-slate-100",
                "max-w-[85%] rounded-lg bg-cyan-700 px-3 py-2 text-sm text-white",
            ),
        ),
        class_name=rx.cond(agent, "flex justify-start", "flex justify-end"),
        data_testid=rx.cond(agent, "agent-message", "user-message"),
    )


def streaming_bubble(partial) -> rx.Component:
    """The reply being written, or the typing indicator before its first words."""
    return rx.el.div(
        rx.el.div(
            rx.cond(
                partial != "",
                safe_markdown(partial),
                rx.el.span(
                    rx.el.span(class_name="h-2 w-2 animate-bounce rounded-full bg-slate-400"),
                    rx.el.span(class_name="h-2 w-2 animate-bounce rounded-full bg-slate-400 [animation-delay:150ms]"),
                    rx.el.span(class_name="h-2 w-2 animate-bounce rounded-full bg-slate-400 [animation-delay:300ms]"),
                    class_name="flex gap-1 py-1",
                    aria_label="Agent is typing",
                ),
            ),
            class_name="max-w-[85%] rounded-lg bg-slate-800 px-3 py-2 text-sm text-slate-100",
        ),
        class_name="flex justify-start",
        data_testid="typing-indicator",
    )


def composer(*, state, busy, can_send, placeholder: str, stop=None, waiting=None, input_id: str) -> rx.Component:
    """Text box + send. Enter sends through the server's event queue, after the typed text has arrived
    (a form's implicit submit would be blocked while the button still looks disabled); with `stop`, a
    Stop button replaces Send while a reply streams.

    While a reply streams (`busy`) the box is read-only and aria-busy, never disabled: a disabled box loses the
    keyboard focus (to <body>) after every message. The server refuses a second send meanwhile (StreamGuard);
    a send by the button gives the focus back to the box."""
    send_button = rx.el.button(
        rx.icon("send", class_name="w-4 h-4"),
        type="button",
        on_click=[state.send, rx.set_focus(input_id)],
        disabled=~can_send,
        aria_label="Send",
        class_name="rounded-md bg-cyan-500 px-3 py-2 text-slate-950 disabled:opacity-40",
    )
    button = (
        send_button
        if stop is None
        else rx.cond(
            waiting,
            rx.el.button(
                rx.icon("square", class_name="w-4 h-4"),
                type="button",
                on_click=stop,
                aria_label="Stop",
                class_name="rounded-md border border-red-500/60 px-3 py-2 text-red-300",
            ),
            send_button,
        )
    )
    length = state.draft.length()
    counter = rx.cond(
        length > COUNTER_FROM,
        rx.el.p(
            length.to_string(),
            f" / {MAX_MESSAGE_LENGTH:,} characters",
            rx.cond(length > MAX_MESSAGE_LENGTH, " (too long to send)", ""),
            class_name=rx.cond(length > MAX_MESSAGE_LENGTH, "text-red-300", "text-slate-400") + " mt-1 text-right text-xs",
            aria_live="polite",
            data_testid="chat-counter",
        ),
        rx.fragment(),
    )
    return rx.el.div(
        rx.el.div(
            # Buffered in the browser (react-debounce-input): a controlled box re-rendered from the server's draft lost
            # keystrokes typed during a round trip on a busy server. Enter and leaving the box (a click on Send) send
            # the typed text first, so the server's draft is whole when `key_down`/`send` read it.
            rx.debounce_input(
                rx.el.input(
                    id=input_id,
                    name=input_id,
                    value=state.draft,
                    on_change=state.set_draft,
                    on_key_down=state.key_down,
                    placeholder=placeholder,
                    read_only=busy,
                    aria_busy=busy,
                    auto_complete="off",
                    aria_label=placeholder,
                    class_name="min-w-0 flex-1 rounded-md border border-slate-700 bg-slate-950 px-3 py-2 text-sm "
                    "text-slate-100 read-only:opacity-60",
                ),
                debounce_timeout=150,
                force_notify_by_enter=True,
                force_notify_on_blur=True,
            ),
            button,
            class_name="flex gap-2",
        ),
        counter,
    )
