"""Shared class names of the tool pages' controls: buttons (primary, danger, quiet) and upper-case badges."""

FOCUS = "focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-cyan-400"
BUTTON = (
    f"inline-flex items-center justify-center gap-1.5 rounded-md border px-3 py-1.5 text-sm font-semibold "
    f"transition-colors {FOCUS} disabled:cursor-not-allowed disabled:border-slate-700 disabled:bg-slate-800/60 "
    "disabled:text-slate-400"
)
PRIMARY = f"{BUTTON} border-cyan-500/50 bg-cyan-500/15 text-cyan-200 hover:bg-cyan-500/25"
DANGER = f"{BUTTON} border-red-500/50 bg-red-500/10 text-red-200 hover:bg-red-500/20"
QUIET = f"{BUTTON} border-slate-600 text-slate-200 hover:bg-slate-800"
BADGE = "inline-flex items-center rounded-md border px-2 py-0.5 text-xs font-semibold uppercase tracking-wide"
