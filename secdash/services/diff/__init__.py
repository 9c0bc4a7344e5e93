"""Diffs, one way for every feature: `compute` compares two texts (off the event loop, bounded), `rows` reads a
unified diff (with unidiff) into the one row type every view shows, unified or side by side; `patch` writes the exact patch of a
file's change (Fix Mode)."""
