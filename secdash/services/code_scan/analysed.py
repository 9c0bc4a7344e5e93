"""What semgrep found in files analysed before, by the files' bytes.

semgrep OSS reads each file on its own (no rule here looks at a second file or at a path), so a file whose bytes
(and suffix, which picks the language) were analysed by the same rules before has the same matches: only files not
seen are given to the engine, and a rescan of unchanged code starts none. Per process (the bounded workers keep
theirs), least recently used first out. Callers remember only what the engine fully analysed.
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from pathlib import Path
from typing import Any

MAX_FILES = 20_000

Key = tuple[str, ...]
_remembered: OrderedDict[Key, Any] = OrderedDict()
_lock = threading.Lock()


def key(path: Path, *rules: str) -> Key | None:
    """The file's bytes and suffix with what analyses it (the rule set, its version); None when it cannot be read
    (the engine then reports why)."""
    try:
        content = path.read_bytes()
    except OSError:
        return None
    return (hashlib.sha256(content).hexdigest(), path.suffix.lower(), *rules)


def recall(found: Key | None) -> Any | None:
    if found is None:
        return None
    with _lock:
        value = _remembered.get(found)
        if value is not None:
            _remembered.move_to_end(found)
        return value


def remember(found: Key | None, value: Any) -> None:
    if found is None:
        return
    with _lock:
        _remembered[found] = value
        _remembered.move_to_end(found)
        while len(_remembered) > MAX_FILES:
            _remembered.popitem(last=False)


def forget() -> None:
    """Forget every remembered result (tests, and a benchmark that times the engine itself)."""
    with _lock:
        _remembered.clear()
