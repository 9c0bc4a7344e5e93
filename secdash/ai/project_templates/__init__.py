"""The offline builder's template library: a few small, correct, clean projects filled from a prompt's words.

`pick_template(prompt)` chooses by keywords: the template whose keyword comes first in the prompt wins ("a
landing page with a signup form" is a landing page, "a signup form for a landing page" a form); a tie at the
same word (both games say "game") goes to the one with more keywords and hints in the prompt; a prompt with no
keyword goes by hints ("monthly sales" suggests the dashboard); with neither, the landing page.
`render(prompt)` returns the template, its plan and its files (path -> content).

Every template's output is checked by tests/ai/test_build_project.py the way the builder checks a model's:
well-formed HTML, local references that resolve, `node --check`, `compile()`, and SecDash's code scan.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from secdash.ai.plans import ProjectPlan
from secdash.ai.project_templates import api, dashboard, form, landing, memory, snake
from secdash.ai.project_templates.brief import words


@dataclass(frozen=True)
class Template:
    key: str
    label: str
    keywords: tuple[str, ...]  # words that name this kind of project; the earliest in a prompt wins
    hints: tuple[str, ...]  # words that suggest it when no keyword is there
    build: Callable[[str], tuple[ProjectPlan, dict[str, str]]]


TEMPLATES = (
    Template("landing", "Landing page", landing.KEYWORDS, landing.HINTS, landing.build),
    Template("form", "Form with validation", form.KEYWORDS, form.HINTS, form.build),
    Template("dashboard", "Dashboard with a chart", dashboard.KEYWORDS, dashboard.HINTS, dashboard.build),
    Template("snake", "Snake game", snake.KEYWORDS, snake.HINTS, snake.build),
    Template("memory", "Memory game", memory.KEYWORDS, memory.HINTS, memory.build),
    Template("api", "REST API stub (Python)", api.KEYWORDS, api.HINTS, api.build),
)
BY_KEY = {template.key: template for template in TEMPLATES}
FALLBACK = BY_KEY["landing"]


def _norm(word: str) -> str:
    """Singular enough to compare: 'forms' -> 'form', 'games' -> 'game' ('ss' endings kept)."""
    word = word.replace("'", "")
    return word[:-1] if len(word) > 3 and word.endswith("s") and not word.endswith("ss") else word


def _positions(tokens: list[str], phrases: tuple[str, ...]) -> list[int]:
    """Where each phrase (one or more words) occurs in the prompt's tokens."""
    found = []
    for phrase in phrases:
        parts = [_norm(word) for word in phrase.split()]
        for start in range(len(tokens) - len(parts) + 1):
            if tokens[start : start + len(parts)] == parts:
                found.append(start)
    return found


def pick_template(prompt: str) -> Template:
    """The template for the prompt (see the module docstring)."""
    tokens = [_norm(word) for word in words(prompt)]
    best: tuple[int, int, int] | None = None  # (first keyword position, -score, order)
    chosen = None
    for order, template in enumerate(TEMPLATES):
        hits = _positions(tokens, template.keywords)
        if not hits:
            continue
        key = (min(hits), -(len(hits) + len(_positions(tokens, template.hints))), order)
        if best is None or key < best:
            best, chosen = key, template
    if chosen is not None:
        return chosen
    scored = [(len(_positions(tokens, t.hints)), -order, t) for order, t in enumerate(TEMPLATES)]
    score, _, template = max(scored, key=lambda item: item[:2])
    return template if score else FALLBACK


def render(prompt: str) -> tuple[Template, ProjectPlan, dict[str, str]]:
    """The chosen template, its plan and its files, filled from the prompt (deterministic)."""
    template = pick_template(prompt)
    plan, files = template.build(prompt)
    return template, plan, files


__all__ = ["BY_KEY", "TEMPLATES", "Template", "pick_template", "render"]
