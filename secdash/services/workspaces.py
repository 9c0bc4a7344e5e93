"""The one lock on a directory SecDash writes in place: a Fix Mode workspace or a Live Code Builder project.

A directory's lock is the file `<dir>.lock` beside it (the `filelock` library: flock on POSIX), so writers in
other threads and other worker processes take turns with each other. Code on the event loop waits for it with
`async with locked_async(dir)` (the waiting and the locking happen in a worker thread, never on the loop); code
already in a worker thread (`asyncio.to_thread`) takes `with locked(dir)`. Hold it for one piece of work, not
across a database transaction that other writers wait for.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from filelock import AsyncFileLock, FileLock


def lock_file(directory: Path) -> Path:
    """The lock file of `directory` (its parent is created: the directory itself may not exist yet)."""
    directory.parent.mkdir(parents=True, exist_ok=True)
    return directory.with_name(directory.name + ".lock")


def locked(directory: Path) -> FileLock:
    """The directory's lock, for code running in a worker thread: `with locked(dir): ...`."""
    return FileLock(lock_file(directory))


@asynccontextmanager
async def locked_async(directory: Path) -> AsyncIterator[None]:
    """Hold the directory's lock from the event loop without blocking it."""
    path = await asyncio.to_thread(lock_file, directory)
    async with AsyncFileLock(path):
        yield
