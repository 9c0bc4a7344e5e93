"""Cards, markers and small tables shared by dashboard tabs."""

import reflex as rx

from secdash.components.badges import pill

CARD = "rounded-xl border border-slate-800 bg-slate-900/60 p-4"


def card(*children, title: str = "", extra: rx.Component | None = None, **props) -> rx.Component:
    header = (
        rx.el.div(
            rx.el.h3(title, class_name="font-semibold text-slate-100"),
            extra or rx.fragment(),
            class_name="mb-3 flex items-center justify-between gap-2",
        )
        if title
        else rx.fragment()
    )
    return rx.el.section(header, *children, class_name=props.pop("class_name", CARD), **props)


def stat_card(label: str, value, icon: str, accent: str = "text-cyan-300", note: rx.Component | None = None) -> rx.Component:
    return rx.el.div(
        rx.el.div(
            rx.el.span(label, class_name="text-sm text-slate-400"),
            rx.icon(icon, class_name=f"w-5 h-5 {accent}"),
            class_name="flex items-center justify-between",
        ),
        rx.el.div(value, class_name=f"mt-2 text-2xl font-bold {accent}"),
        note or rx.fragment(),
        class_name=CARD,
    )


def simulated_mark() -> rx.Component:
    """Every simulated figure carries this mark."""
    return pill("simulated", "bg-violet-500/15 text-violet-300 border-violet-500/40 normal-case")


def sample_mark() -> rx.Component:
    return pill("sample", "bg-slate-500/15 text-slate-300 border-slate-500/40 normal-case")


def status_badge(status, label) -> rx.Component:
    base = "inline-flex items-center gap-1 rounded-md border px-2 py-0.5 text-xs font-bold tracking-wide"
    return rx.el.span(
        label,
        class_name=rx.match(
            status,
            ("secure", f"{base} bg-emerald-500/15 text-emerald-300 border-emerald-500/40"),
            ("critical", f"{base} bg-red-500/20 text-red-300 border-red-500/50"),
            ("paused", f"{base} bg-slate-500/15 text-slate-300 border-slate-500/40"),
            f"{base} bg-amber-500/15 text-amber-300 border-amber-500/40",
        ),
    )
