"""Shares AI design cache (a demo of what a full code scan should catch)."""

import pickle


def load_cached_design(blob: bytes) -> dict:
    """Restore a cached design; unpickling untrusted data is unsafe (bandit B301)."""
    return pickle.loads(blob)
