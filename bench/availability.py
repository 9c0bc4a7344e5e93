"""(j) Availability under hostile input (issue 21, items 1-4): /api/health while one payload is processed.

In-process (the API app on this process's event loop through httpx's ASGI transport, a fresh SQLite database), as
the server runs it: a limited user's payloads at the sizes the penetration test measured, and anyone's injected
demo search. /api/health is asked every 20 ms throughout; each answer's time counts from when the request was due,
so a blocked event loop shows. The peer is the same figure with nothing being processed.

1. a hand edit whose one line is `"<a" * 32000` and `* 64000` (the quadratic inline-handler rule);
2. saving a ~300 KB version over another (the change note's diff), then GET /diff of the two;
3. a 36 KB hand edit with 2,000 inline <script> blocks (one `node --check` each, before the cap);
4. 24 demo searches with `printf('%.*c', 900000000, 'x')` injected, then a sign-in (its time is printed too).

Figures are printed, never asserted.
"""

from __future__ import annotations

import asyncio
import time

from bench.common import prepare_environment

INTERVAL = 0.02
PRINTF = "x' UNION SELECT printf('%.*c', 900000000, 'x'), 1 --"


def _two_versions(lines: int) -> tuple[str, str]:
    before = "\n".join(f"<p>line {i} {'x' * 10}</p>" for i in range(lines))
    after = "\n".join(f"<p>line {i * 7 + 1} {'y' * 10}</p>" if i % 2 else f"<p>line {i} {'x' * 10}</p>" for i in range(lines))
    return before, after


class Watch:
    """/api/health every INTERVAL while a block runs: the worst and median answer time (from when it was due)."""

    def __init__(self, client) -> None:
        self.client, self.times, self._done = client, [], asyncio.Event()

    async def _ask(self) -> None:
        due = time.perf_counter()
        while not self._done.is_set():
            await self.client.get("/api/health")
            self.times.append(time.perf_counter() - due)
            due = time.perf_counter() + INTERVAL
            await asyncio.sleep(INTERVAL)

    async def __aenter__(self) -> Watch:
        self._task = asyncio.create_task(self._ask())
        return self

    async def __aexit__(self, *exc) -> None:
        self._done.set()
        await self._task

    def line(self, name: str, seconds: float, extra: str = "") -> str:
        ordered = sorted(self.times)
        median = ordered[len(ordered) // 2] * 1000 if ordered else 0
        worst = ordered[-1] * 1000 if ordered else 0
        return f"  {name:<44} {seconds:7.2f} s   health max {worst:8.1f} ms  median {median:6.1f} ms{extra}"


async def _main() -> None:
    import httpx

    from secdash.api.main import create_api
    from secdash.cli import migrate
    from secdash.core.db import session_scope
    from tests.factories import DEFAULT_PASSWORD, make_user
    from tests.support.plant_artifact import plant

    migrate()
    async with session_scope() as session:
        await make_user(session, "user@bench.test", role="limited")
    transport = httpx.ASGITransport(app=create_api(), client=("198.51.100.7", 50000))
    async with httpx.AsyncClient(transport=transport, base_url="http://bench", timeout=1200) as client:
        token = (await client.post("/api/auth/login", json={"email": "user@bench.test", "password": DEFAULT_PASSWORD})).json()[
            "token"
        ]
        headers = {"Authorization": f"Bearer {token}"}
        print("Availability: /api/health every 20 ms while each payload is processed (in-process API)")

        async with Watch(client) as idle:
            await asyncio.sleep(2)
        print(idle.line("nothing (the peer)", 2.0))

        for count in (32_000, 64_000):
            artifact = await plant("user@bench.test", "long line", "<!doctype html><title>t</title><p>first</p>")
            page = "<!doctype html><title>t</title><p>" + "<a" * count
            async with Watch(client) as watch:
                started = time.perf_counter()
                answer = await client.post(f"/api/artifacts/{artifact}/versions", headers=headers, json={"htmlContent": page})
                took = time.perf_counter() - started
            print(watch.line(f'1. hand edit "<a" * {count}', took, f"  ({answer.status_code})"))

        before, after = _two_versions(11_000)
        artifact = await plant("user@bench.test", "two versions", before)
        async with Watch(client) as watch:
            started = time.perf_counter()
            answer = await client.post(f"/api/artifacts/{artifact}/versions", headers=headers, json={"htmlContent": after})
            took = time.perf_counter() - started
        print(watch.line(f"2. save a {len(after) // 1000} KB version over another", took, f"  ({answer.status_code})"))
        async with Watch(client) as watch:
            started = time.perf_counter()
            answer = await client.get(f"/api/artifacts/{artifact}/diff?from=1&to=2", headers=headers)
            took = time.perf_counter() - started
        print(watch.line("2. GET /diff of the two", took, f"  ({answer.status_code}, {len(answer.content)} bytes)"))

        artifact = await plant("user@bench.test", "scripts", "<!doctype html><title>t</title><p>first</p>")
        page = "<!doctype html><title>t</title>" + "<script>let a=1;</script>\n" * 2000
        async with Watch(client) as watch:
            started = time.perf_counter()
            answer = await client.post(f"/api/artifacts/{artifact}/versions", headers=headers, json={"htmlContent": page})
            took = time.perf_counter() - started
        print(watch.line(f"3. hand edit of {len(page) // 1000} KB, 2,000 inline scripts", took, f"  ({answer.status_code})"))

        async def search() -> None:
            await client.get("/demo/gem/search", params={"q": PRINTF})

        searches = [asyncio.create_task(search()) for _ in range(24)]
        await asyncio.sleep(0.3)
        async with Watch(client) as watch:
            started = time.perf_counter()
            answer = await client.post("/api/auth/login", json={"email": "user@bench.test", "password": DEFAULT_PASSWORD})
            signed = time.perf_counter() - started
            await asyncio.gather(*searches)
            took = time.perf_counter() - started
        print(watch.line("4. 24 printf searches, then a sign-in", took, f"  (sign-in {answer.status_code} in {signed:.2f} s)"))


def run() -> None:
    prepare_environment(SECDASH_SIMULATION="off")
    asyncio.run(_main())


if __name__ == "__main__":
    run()
