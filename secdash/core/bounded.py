"""Bounded workers: CPU work on content a user, a model or the internet controls runs in other processes.

Scanning a file, checking a page, diffing two versions or running a demo site's injectable SQL is pure CPU work
whose cost the content decides (a quadratic rule on one long line, one SQLite opcode that allocates 900 MB). In
the server's own process such work holds the GIL and stops every request, whatever thread it runs in. Here each
task runs in a pool of worker processes (pebble) with:

- a time budget per task: a task still running when it runs out is killed with its worker, and a fresh worker
  takes its place;
- a memory budget per worker (the soft address-space limit), so a runaway allocation fails inside the worker;
- a concurrency cap (the pool's size) and a queue cap: past it a task is refused at once (`Busy`) instead of
  waiting behind a flood. Tasks wait for a worker here, not in pebble's queue: a waiting task whose caller went
  away is dropped, where pebble would still hand it to a worker and then kill that worker to cancel it (a
  search after 24 abandoned ones waited 43 s for one worker start after another);
- a lower CPU priority than the server (nice 10), so the server answers first when both want the CPU.

Callers turn `BudgetExceeded` and `Busy` into a clear "too large to check / busy" result for the user.
Functions and arguments sent to a pool must be picklable (module-level functions, plain data).
"""

from __future__ import annotations

import asyncio
import atexit
import multiprocessing
import os
import resource
import signal
import threading
import weakref
from collections.abc import Callable
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from typing import Any, Literal, TypeVar

from pebble import ProcessExpired, ProcessPool

T = TypeVar("T")


@dataclass(frozen=True)
class Pool:
    name: str
    workers: int  # tasks running at once
    memory_mb: int  # soft address-space limit of each worker
    queue: int  # tasks running or waiting at most; more are refused
    per_owner: int = 0  # tasks of one user running or waiting at most (0: no cap of its own)


# Scans, review checks and diffs of code and pages; demo-site SQL on its own so a flood of injections can only
# slow the demo site down, never a scan or the console.
CODE = Pool("code", workers=2, memory_mb=2048, queue=64, per_owner=3)
DEMO_SQL = Pool("demo-sql", workers=1, memory_mb=512, queue=32)  # a drill sends up to 8 at once


class BudgetExceeded(Exception):  # noqa: N818 (a budget, not an error of the caller's)
    """The task ran out of time or memory (or its worker died): it was stopped and has no result."""

    def __init__(self, pool: str, reason: Literal["time", "memory"], seconds: float) -> None:
        super().__init__(f"{pool} task ran out of {reason}")
        self.pool, self.reason, self.seconds = pool, reason, seconds


class Busy(Exception):  # noqa: N818
    """The pool (or, `yours`, the caller's share of it) already holds as many tasks as it may: this one was not
    started."""

    def __init__(self, pool: str, *, yours: bool = False) -> None:
        super().__init__(f"{pool} workers are busy{' with your earlier tasks' if yours else ''}")
        self.pool, self.yours = pool, yours


_pools: dict[str, ProcessPool] = {}
_pending: dict[str, int] = {}
_owned: dict[tuple[str, int], int] = {}
_lock = threading.Lock()
# A slot per worker, per event loop (an asyncio semaphore belongs to one loop; tests run several).
_slots: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[str, asyncio.Semaphore]] = weakref.WeakKeyDictionary()


def _slot(pool: Pool) -> asyncio.Semaphore:
    with _lock:
        slots = _slots.setdefault(asyncio.get_running_loop(), {})
        return slots.setdefault(pool.name, asyncio.Semaphore(pool.workers))


def _start_worker(memory_mb: int) -> None:
    """In each new worker: a lower priority, a soft memory limit (a subprocess may lift it: see `unlimited`), and
    SIGTERM's default action back (pebble's handler runs only between bytecodes, so a task stopped inside one long
    C call, a SQLite opcode or a regular expression, would run on for pebble's 3 s grace before its SIGKILL)."""
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    os.nice(10)
    _, hard = resource.getrlimit(resource.RLIMIT_AS)
    limit = memory_mb * 1024 * 1024
    resource.setrlimit(resource.RLIMIT_AS, (limit if hard == resource.RLIM_INFINITY else min(limit, hard), hard))


def unlimited() -> None:
    """A `preexec_fn` for a program a worker starts that reserves address space up front (node's V8 does)."""
    _, hard = resource.getrlimit(resource.RLIMIT_AS)
    resource.setrlimit(resource.RLIMIT_AS, (hard, hard))


def _pool(pool: Pool) -> ProcessPool:
    with _lock:
        running = _pools.get(pool.name)
        if running is None or not running.active:
            # spawn: a worker starts clean, without the server's threads, locks or open connections.
            running = ProcessPool(
                max_workers=pool.workers,
                initializer=_start_worker,
                initargs=(pool.memory_mb,),
                context=multiprocessing.get_context("spawn"),
            )
            _pools[pool.name] = running
        return running


async def run(pool: Pool, seconds: float, function: Callable[..., T], *args: Any, owner: int | None = None) -> T:
    """`function(*args)` in a worker of `pool`, stopped after `seconds` of running (BudgetExceeded), refused when
    the pool, or `owner`'s share of it, is full (Busy). An exception the function raises comes back as itself; a
    cancelled caller cancels the task (a running one is killed with its worker)."""
    mine = (pool.name, owner) if owner is not None and pool.per_owner else None
    with _lock:
        if _pending.get(pool.name, 0) >= pool.queue:
            raise Busy(pool.name)
        if mine is not None and _owned.get(mine, 0) >= pool.per_owner:
            raise Busy(pool.name, yours=True)
        _pending[pool.name] = _pending.get(pool.name, 0) + 1
        if mine is not None:
            _owned[mine] = _owned.get(mine, 0) + 1
    try:
        async with _slot(pool):
            return await _run_now(pool, seconds, function, args)
    finally:
        with _lock:
            _pending[pool.name] -= 1
            if mine is not None:
                _owned[mine] -= 1
                if not _owned[mine]:
                    del _owned[mine]


async def _run_now(pool: Pool, seconds: float, function: Callable[..., T], args: tuple[Any, ...]) -> T:
    """The task in a worker that is free now (the caller holds one of the pool's slots)."""
    future = _pool(pool).schedule(function, args=args, timeout=seconds)
    try:
        return await asyncio.wrap_future(future)
    except TimeoutError:
        raise BudgetExceeded(pool.name, "time", seconds) from None
    except (MemoryError, ProcessExpired):  # ProcessExpired: the worker died (the kernel's OOM killer, a crash)
        raise BudgetExceeded(pool.name, "memory", seconds) from None
    except BrokenProcessPool:  # no worker could start (the next call starts a new pool)
        raise Busy(pool.name) from None


def shutdown() -> None:
    """Stop every pool's workers (at exit; tests)."""
    with _lock:
        pools = list(_pools.values())
        _pools.clear()
    for pool in pools:
        pool.stop()
        pool.join(timeout=5)


atexit.register(shutdown)
