"""One API app per test process, as a server has one.

A fresh app's first request builds the state of every route (about 0.1 s): a thousand client fixtures each paid it.
Tests that change what `create_api()` reads when it builds the app (the trusted proxies) build their own.
"""

from __future__ import annotations

import functools

from fastapi import FastAPI

from secdash.api.main import create_api


@functools.cache
def shared_api() -> FastAPI:
    return create_api()
