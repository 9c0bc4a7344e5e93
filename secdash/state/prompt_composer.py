"""The prompt box of the Live Code Builder and the HTML artifacts: its text, the in-flight flag of a send, the
keystroke handlers (Ctrl/Cmd+Enter sends). The state that mixes it in declares `submit` (what a send does) and
`_max_prompt_chars` (the service's limit: one character more is kept, so the service's own message refuses it)."""

from __future__ import annotations

import reflex as rx

from secdash.state.base import protected


class PromptComposer(rx.State, mixin=True):
    prompt: str = ""
    sending: bool = False  # a request of this tab is in flight

    def _max_prompt_chars(self) -> int:
        raise NotImplementedError

    @protected(reads_only=True)
    async def set_prompt(self, value: str):
        self.prompt = str(value or "")[: self._max_prompt_chars() + 1]
        return None

    @protected(reads_only=True)
    async def key_down(self, key: str, info: dict):
        """Ctrl+Enter (or Cmd+Enter) sends; handled after the text itself, so fast typing loses nothing."""
        modifiers = info if isinstance(info, dict) else {}
        if key == "Enter" and (modifiers.get("ctrl_key") or modifiers.get("meta_key")):
            return type(self).submit  # type: ignore[attr-defined]
        return None

    def _take_prompt(self) -> str:
        """The prompt to send, marking the send in flight; "" when there is none or a send is in flight."""
        text = self.prompt.strip()
        if not text or self.sending:
            return ""
        self.sending = True
        return text
