"""State tests start with nothing remembered about sessions (state.base's verification cache)."""

from __future__ import annotations

import pytest

from secdash.state import base


@pytest.fixture(autouse=True)
def fresh_verification_cache():
    base.clear_verification_cache()
    yield
    base.clear_verification_cache()
