"""What every page with a follow loop shares: `stop_following`, which the page calls when it leaves the screen
(`on_unmount`) to end its loop. The state that mixes it in names its page in `_follow_page` (the key its
`follow.signed_in_rounds` loop runs under)."""

from __future__ import annotations

from typing import ClassVar

import reflex as rx

from secdash.state import follow
from secdash.state.base import protected


class FollowedPage(rx.State, mixin=True):
    _follow_page: ClassVar[str] = ""

    @protected(reads_only=True)
    async def stop_following(self):
        """The page left the screen: end its follow loop."""
        follow.stop_following(self.router.session.client_token, self._follow_page)
        return None
