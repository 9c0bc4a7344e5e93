"""The Security Scan and AI Defense Mode tabs (Live Traffic and User Scan: dashboard_traffic.py; the Problem
Database: dashboard_problems.py)."""

import reflex as rx

from secdash.components.badges import agent_status_badge, pill
from secdash.components.cards import card, simulated_mark
from secdash.components.job_log import log_line
from secdash.state.auth import AuthState
from secdash.state.dashboard import (
    DefenseTab,
    ScanTab,
)


def _scan_figure(label: str, value) -> rx.Component:
    return rx.el.div(
        rx.el.div(label, class_name="text-xs text-slate-400"), rx.el.div(value, class_name="text-lg font-semibold text-slate-100")
    )


def _scan_log() -> rx.Component:
    """What the scan job writes, line by line (the newest last)."""
    return rx.cond(
        ScanTab.scan_log.length() > 0,
        rx.el.div(
            rx.el.div("Scan log", class_name="mb-1 text-xs text-slate-400"),
            rx.el.ol(
                rx.foreach(ScanTab.scan_log, lambda line: log_line(line, wrap="break-all")),
                class_name="max-h-48 overflow-y-auto rounded-md border border-slate-800 bg-slate-950/60 p-2 font-mono text-xs",
                aria_live="polite",
                aria_label="Scan log",
                tab_index=0,  # scrolls: keyboard too
                data_testid="scan-log",
            ),
            class_name="mt-3",
        ),
        rx.fragment(),
    )


def scan_tab() -> rx.Component:
    idle = rx.el.div(
        rx.el.p(
            "Scan the configured code (",
            ScanTab.target_files,
            " files) for secrets and vulnerabilities.",
            class_name="text-slate-400",
        ),
        rx.el.div(
            *[
                rx.el.button(
                    rx.el.div(title, class_name="font-semibold"),
                    rx.el.div(ScanTab.target_lines, " lines", class_name="text-sm text-slate-400"),
                    rx.el.div(text, class_name="text-xs text-slate-400"),
                    on_click=ScanTab.start_scan(kind),
                    disabled=~AuthState.is_admin,
                    class_name="flex flex-col items-start gap-1 rounded-lg border border-slate-700 p-4 text-left "
                    "hover:border-cyan-500 disabled:cursor-not-allowed disabled:opacity-50 disabled:hover:border-slate-700",
                )
                for kind, title, text in (
                    ("quick", "Quick Scan", "Fast engines, every severity: secrets, bandit, SecDash's semgrep rules"),
                    ("full", "Full Scan", "Every engine: the quick scan plus njsscan's semgrep rules"),
                )
            ],
            class_name="mt-3 grid gap-3 md:grid-cols-2",
        ),
        rx.cond(
            AuthState.is_admin,
            rx.fragment(),
            rx.el.p("Only administrators may start or stop scans.", class_name="mt-2 text-xs text-slate-400"),
        ),
    )
    progress = rx.el.div(
        rx.el.div(
            class_name="h-full rounded-full bg-cyan-400 transition-all", style={"width": ScanTab.scan_percent.to_string() + "%"}
        ),
        class_name="h-2 w-full rounded-full bg-slate-800",
        role="progressbar",
        aria_valuenow=ScanTab.scan_percent,
        aria_valuemin=0,
        aria_valuemax=100,
        aria_label="Scan progress",
    )
    figures = rx.el.div(
        _scan_figure("Lines", rx.el.span(ScanTab.scan_lines, " / ", ScanTab.scan_total_lines)),
        _scan_figure("Files", rx.el.span(ScanTab.scan_files, " / ", ScanTab.scan_total_files)),
        _scan_figure("Agents scanning", ScanTab.scan_agents),
        _scan_figure("Threats found", ScanTab.scan_threats),
        _scan_figure("Vulnerabilities", ScanTab.scan_vulnerabilities),
        _scan_figure("Time left", rx.cond(ScanTab.scan_eta != "", ScanTab.scan_eta, "-")),
        class_name="mt-3 grid grid-cols-2 gap-3 md:grid-cols-3",
    )
    running = rx.el.div(
        rx.el.div(
            rx.el.span(ScanTab.scan_type, " scan running: ", ScanTab.scan_percent, "%"),
            rx.cond(
                AuthState.is_admin,
                rx.el.button(
                    "Stop Scan",
                    on_click=ScanTab.stop_scan,
                    class_name="rounded-md border border-red-500/50 px-3 py-1.5 text-sm text-red-300",
                ),
                rx.fragment(),
            ),
            class_name="mb-2 flex items-center justify-between capitalize",
        ),
        progress,
        rx.el.p("Current file: ", ScanTab.scan_current_file, class_name="mt-2 font-mono text-xs text-slate-400"),
        figures,
        _scan_log(),
    )
    finished = rx.el.div(
        rx.match(
            ScanTab.scan_status,
            ("complete", rx.el.h3("Scan Complete", class_name="text-lg font-semibold text-emerald-300")),
            ("stopped", rx.el.h3("Scan stopped", class_name="text-lg font-semibold text-amber-300")),
            rx.el.h3(ScanTab.scan_error, class_name="text-lg font-semibold text-red-300"),
        ),
        rx.cond(
            ScanTab.scan_outcome != "",
            rx.el.p(ScanTab.scan_outcome, class_name="mb-2 text-sm text-amber-300", data_testid="scan-outcome"),
            rx.fragment(),
        ),
        progress,
        figures,
        _scan_log(),
        rx.el.p(
            "Findings are listed in the Problem Database with file, line and rule.", class_name="mt-2 text-sm text-slate-400"
        ),
        rx.el.button(
            "New scan", on_click=ScanTab.new_scan, class_name="mt-3 rounded-md border border-slate-700 px-3 py-1.5 text-sm"
        ),
    )
    return card(
        rx.match(ScanTab.scan_status, ("idle", idle), ("running", running), finished),
        title="Security Scan",
    )


def _agent_row(agent: dict) -> rx.Component:
    return rx.el.li(
        rx.el.span(agent["name"], class_name="text-sm font-semibold text-slate-100"),
        agent_status_badge(agent["status"]),
        rx.el.span(
            agent["blocked"],
            rx.cond(agent["blocked"] == "1", " threat blocked", " threats blocked"),
            class_name="basis-full text-xs text-slate-400",
        ),
        class_name="flex flex-wrap items-center justify-between gap-x-2 gap-y-1 rounded-lg border border-slate-800 "
        "bg-slate-950/60 px-3 py-2",
        data_testid="defense-agent",
    )


def defense_tab() -> rx.Component:
    return rx.el.div(
        card(
            rx.el.ul(
                rx.el.li("Site monitor: probing ", DefenseTab.sites_count, " sites for status, TLS and security headers"),
                rx.el.li("Code scanner: detect-secrets, bandit, templates and semgrep (SecDash's and njsscan's rules) on demand"),
                rx.el.li("Defense agents: the four platform agents below answer in Defense Command"),
                class_name="flex list-disc flex-col gap-1 pl-5 text-sm text-slate-300",
            ),
            rx.el.ul(rx.foreach(DefenseTab.defense_agents, _agent_row), class_name="mt-3 grid gap-2 sm:grid-cols-2"),
            title="AI Defense Mode",
        ),
        card(
            rx.cond(
                DefenseTab.activities.length() > 0,
                rx.el.ul(
                    rx.foreach(
                        DefenseTab.activities,
                        lambda a: rx.el.li(
                            rx.el.div(
                                pill(a.activity_type, "bg-cyan-500/10 text-cyan-300 border-cyan-500/30"),
                                rx.el.span(a.target, class_name="text-sm"),
                                rx.cond(a.simulated, simulated_mark(), rx.fragment()),
                                rx.el.span(a.created, class_name="ml-auto font-mono text-xs text-slate-400"),
                                class_name="flex items-center gap-2",
                            ),
                            rx.el.p(a.description, class_name="text-sm text-slate-400"),
                            class_name="border-b border-slate-800 py-2 last:border-0",
                        ),
                    )
                ),
                rx.el.p("No AI activity yet.", class_name="text-slate-400"),
            ),
            title="Defense Activity",
            class_name="mt-4 rounded-xl border border-slate-800 bg-slate-900/60 p-4",
        ),
    )
