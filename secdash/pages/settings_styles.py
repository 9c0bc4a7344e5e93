"""The form styles the Settings page's channel and rule forms share."""

from secdash.components.styles import FOCUS as _FOCUS

INPUT = f"w-full rounded-md border border-slate-700 bg-slate-950 px-3 py-2 text-sm text-slate-100 {_FOCUS}"
SMALL_INPUT = f"w-24 rounded-md border border-slate-700 bg-slate-950 px-2 py-1.5 text-sm text-slate-100 {_FOCUS}"
SELECT = f"rounded-md border border-slate-700 bg-slate-950 px-2 py-1.5 text-sm text-slate-200 {_FOCUS}"
CHECK = "h-4 w-4 shrink-0 accent-cyan-500"
CHECK_LABEL = "flex items-center gap-2 text-sm text-slate-300"
LABEL = "text-sm font-medium text-slate-200"
HELP = "text-xs text-slate-400"
