"""Small tasks for the engine tests (real Task subclasses, not fakes of the interface)."""

from __future__ import annotations

from dataclasses import dataclass

from secdash.ai.base import ChatTurn
from secdash.ai.files import file_block
from secdash.ai.tasks.base import Task


@dataclass(frozen=True)
class AskTask(Task):
    """Ask the model one thing, with a system prompt."""

    request: str
    system_prompt: str = ""
    kind = "ask"

    def system(self) -> str:
        return self.system_prompt

    def turns(self):
        return (ChatTurn("user", self.request),)


@dataclass(frozen=True)
class PageTask(Task):
    """Write a small site as files; offline, a fixed template."""

    request: str
    kind = "page"
    files = True

    def system(self) -> str:
        return "You write small static sites."

    def turns(self):
        return (ChatTurn("user", self.request),)

    def offline_text(self) -> str:
        return (
            "Here is the site.\n"
            + file_block("index.html", "<h1>Hello</h1>\n<p>offline</p>")
            + file_block("css/site.css", "h1 { color: teal; }")
            + "Done.\n"
        )
