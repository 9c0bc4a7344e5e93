"""What the game templates share: the page's game styles and the plan of a one-page game."""

from __future__ import annotations

from secdash.ai.plans import PlannedFile, ProjectPlan

GAME_CSS = """
.game { max-width: 30rem; margin-inline: auto; text-align: center; }
.stats { display: flex; flex-wrap: wrap; justify-content: center; gap: 0.5rem 1.5rem; margin: 1rem 0; }
.stats p { margin: 0; }
.stats strong { font-variant-numeric: tabular-nums; }
.status { min-height: 1.6em; margin: 1rem 0 0; font-weight: 600; }
.controls { display: flex; flex-wrap: wrap; justify-content: center; gap: 0.5rem; margin-top: 1rem; }
"""


def game_plan(name: str, description: str, what: str) -> ProjectPlan:
    return ProjectPlan(
        name=name,
        description=description,
        files=[
            PlannedFile(path="index.html", language="html", description=f"The {what} page: board, score, controls"),
            PlannedFile(path="style.css", language="css", description="Theme colours and a board that fits a phone"),
            PlannedFile(path="app.js", language="javascript", description=f"The {what} game logic"),
        ],
    )
