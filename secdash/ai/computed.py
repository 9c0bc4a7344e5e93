"""What SecDash computed from an agent's live data, as text for a model's system prompt (inside the live
data, after `situation.render`): the open problems ranked with their fix, each site's check pattern, the
deployed defenses with the response time under load, the drills and the last 24 hours' changes. The
offline engine answers from the same functions (secdash/ai/operator_answers.py), so both paths see the
same facts.
"""

from __future__ import annotations

from secdash.ai.operations import pattern, rank, ranked_line
from secdash.ai.site_defense import defense_of, drill_line, last_drill, load_line, rules_for
from secdash.ai.situation import Situation, when

MAX_RENDER_CHARS = 3500

# --- the model's view ---------------------------------------------------------------------------------------


def _bounded(lines: list[str], budget: int) -> list[str]:
    kept, used = [], 0
    for line in lines:
        if used + len(line) + 1 > budget:
            kept.append("- ... (more not listed)")
            break
        kept.append(line)
        used += len(line) + 1
    return kept


def render(situation: Situation, max_chars: int = MAX_RENDER_CHARS) -> str:
    """What SecDash computed from the live data, for a model: the top problems ranked with their fix, the
    sites' check patterns, deployed defenses, drills and the last 24 hours' changes (bounded)."""
    lines = [
        "Computed by SecDash from the data above (cite as [rank N], [checks Site], [defense Site], [drill #N], [change]):",
        "Open problems ranked by severity, public exposure, age and whether a fix is ready:",
    ]
    ranked = rank(situation)
    lines += [f"- [rank {n}] {ranked_line(item)}" for n, item in enumerate(ranked[:5], start=1)] or ["- none open"]
    lines.append("Check patterns:")
    lines += [
        f"- [checks {site.name}] {pattern(site).summary()}" for site in situation.sites[:8] if site.history or site.recent_checks
    ] or ["- no checks recorded"]
    for site in situation.sites[:8]:
        defense = defense_of(situation, site)
        if defense is None:
            continue
        rules = [*rules_for(defense, "ddos"), *(f"blocks {p}" for p in defense.patterns), *defense.uploads, *defense.urls]
        state = "the weak default (refuses nothing)" if not rules else "; ".join(rules)
        lines.append(f"- [defense {site.name}] revision {defense.revision} ({defense.source}): {state}")
        lines.append(f"  {load_line(site, last_drill(situation, site, 'ddos'))}")
    lines.append("Drills, newest first:" if situation.drills else "Drills: none has run against these sites.")
    lines += [f"- [drill #{d.id}] {drill_line(d).removeprefix(f'drill #{d.id} ')}" for d in situation.drills[:6]]
    lines.append("Changes in the last 24 hours:" if situation.changes else "Changes in the last 24 hours: none.")
    lines += [f"- [change] {when(c.at)}: {c.text}" for c in situation.changes[:10]]
    text = "\n".join(_bounded(lines, max_chars - 40))
    return text
