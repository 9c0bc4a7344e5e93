"""(d) What our AI layer adds to a reply: first streamed token and full reply, against the local test server.

Direct: the openai SDK streaming from the test server. Ours: services.defense_chat.stream_reply on
the same server (stores question and reply, audits the call, asks for the threat level).
"""

from __future__ import annotations

import asyncio
import time

from bench.common import prepare_environment, summary

RUNS = 30


async def _run() -> None:
    import openai

    from secdash.cli import migrate
    from secdash.core.config import get_settings
    from secdash.core.db import session_scope
    from secdash.services.agents import defense_chat
    from secdash.services.identity import users
    from tests.support.fake_openai import FakeOpenAI

    migrate()
    fake = FakeOpenAI()
    settings = get_settings()
    settings.LLM_BASE_URL, settings.LLM_MODEL, settings.LLM_API_KEY = fake.base_url, "echo", "sk-bench"
    # The per-user model budget guards production; the benchmark measures overhead, not the budget.
    settings.AI_CALLS_PER_MINUTE = settings.AI_CALLS_PER_HOUR = 1_000_000
    async with session_scope() as session:
        created = await users.create_user(session=session, email="llm@bench.test", password="bench-password-123")
    user = created  # create_user returns the public shape
    client = openai.AsyncOpenAI(base_url=fake.base_url, api_key="sk-bench", max_retries=0)
    question = "How should we respond to a phishing campaign against staff?"
    results: dict[str, tuple[list[float], list[float]]] = {"direct SDK": ([], []), "SecDash layer": ([], [])}
    shown: list[float] = []
    for _ in range(RUNS):
        started = time.perf_counter()
        first = None
        stream = await client.chat.completions.create(model="echo", stream=True, messages=[{"role": "user", "content": question}])
        async for _chunk in stream:
            first = first or time.perf_counter()
        results["direct SDK"][0].append((first - started) * 1000)
        results["direct SDK"][1].append((time.perf_counter() - started) * 1000)

        started = time.perf_counter()
        first = None
        async for item in defense_chat.stream_reply(
            user=user, content=question, agent_id="tour", surface="api", settings=settings
        ):
            if isinstance(item, str):
                first = first or time.perf_counter()
            elif isinstance(item, defense_chat.ReplyDone):  # the reply is stored and shown: the composer frees
                shown.append((time.perf_counter() - started) * 1000)
        results["SecDash layer"][0].append((first - started) * 1000)
        results["SecDash layer"][1].append((time.perf_counter() - started) * 1000)
    fake.close()
    for name, (firsts, fulls) in results.items():
        print(f"  {name:14s} first token: {summary(firsts)}")
        if name == "SecDash layer":
            print(f"  {'':14s} reply shown: {summary(shown)} (stored; the composer frees here)")
        print(f"  {'':14s} full reply:  {summary(fulls)}" + (" (with the threat judgement)" if name != "direct SDK" else ""))


def run() -> None:
    print("(d) AI layer overhead (local OpenAI-compatible test server, SQLite)")
    prepare_environment()
    asyncio.run(_run())
