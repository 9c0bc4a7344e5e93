"""The shipper against the real ingest endpoint: every line exactly once, through rotations and restarts."""

from __future__ import annotations

import os

import httpx
import pytest
from sqlmodel import select

from secdash.models import Site, TrafficRequest
from secdash.services.traffic import tokens
from secdash.services.traffic.shipper import Shipper, ShipperStopped
from tests.factories import make_user
from tests.support.api_app import shared_api

LINE = '203.0.113.{n} - - [05/Mar/2024:10:00:00 +0000] "GET /page/{tag}-{i} HTTP/1.1" 200 5 "-" "Mozilla/5.0"\n'


def append(path, text: str) -> None:
    with open(path, "a") as stream:
        stream.write(text)


def lines(tag: str, count: int) -> str:
    return "".join(LINE.format(n=i % 200, tag=tag, i=i) for i in range(count))


@pytest.fixture
async def world(session, tmp_path):
    site = Site(name="Shop", domain="shop.example", url="https://shop.example/")
    session.add(site)
    await session.commit()
    admin = await make_user(session, "root@example.com", role="admin")
    made = await tokens.create_token(session=session, actor=admin, site_id=site.id)
    transport = httpx.ASGITransport(app=shared_api(), client=("198.51.100.2", 5000))
    async with httpx.AsyncClient(transport=transport) as client:
        yield made.secret, client, tmp_path


def shipper(world, *paths, **extra) -> Shipper:
    token, client, folder = world
    made = Shipper(
        url="http://testserver", token=token, paths=list(paths), state_file=folder / "state.json", client=client, **extra
    )
    made.load()
    return made


async def stored_targets(session) -> list[str]:
    return sorted(row.target for row in (await session.exec(select(TrafficRequest))).all())


async def test_lines_are_shipped_once_and_a_restart_goes_on_where_it_stopped(session, world):
    log = world[2] / "access.log"
    log.write_text(lines("a", 12) + '203.0.113.1 - - [05/Mar/2024:10:00:00 +0000] "GET /half')  # a line being written
    first = shipper(world, log, batch_lines=5)
    assert await first.ship_available() == 12 and first.shipped == 12
    append(log, ' HTTP/1.1" 200 5 "-" "x"\n' + lines("b", 3))
    again = shipper(world, log)  # a new process: the cursor was saved
    assert await again.ship_available() == 4
    assert await again.ship_available() == 0
    targets = await stored_targets(session)
    assert len(targets) == 16 and len(set(targets)) == 16 and "/half" in targets


async def test_a_renamed_log_is_finished_then_the_new_one_is_read(session, world):
    folder = world[2]
    log = folder / "access.log"
    log.write_text(lines("a", 3))
    ship = shipper(world, log)
    await ship.ship_available()
    append(log, lines("b", 2))  # written before the rotation, not shipped yet
    os.rename(log, folder / "access.log.1")
    append(folder / "access.log.1", lines("c", 2))  # the server writes to the old file until it reopens
    log.write_text(lines("d", 4))
    await ship.ship_available()
    restarted = shipper(world, log)  # the drain survives a restart too
    append(folder / "access.log.1", lines("e", 1))
    await restarted.ship_available()
    targets = await stored_targets(session)
    assert len(targets) == 12 and len(set(targets)) == 12


async def test_a_log_truncated_in_place_is_read_again_from_its_start(session, world):
    log = world[2] / "access.log"
    log.write_text(lines("a", 5))
    ship = shipper(world, log)
    await ship.ship_available()
    log.write_text(lines("b", 2))  # copytruncate, then new lines
    await ship.ship_available()
    assert len(await stored_targets(session)) == 7


async def test_an_unreachable_server_is_retried_with_back_off_and_nothing_is_lost(session, world):
    token, client, folder = world
    log = folder / "access.log"
    log.write_text(lines("a", 3))
    failures = {"left": 2}
    real_post = client.post

    async def flaky_post(*args, **kwargs):
        if failures["left"]:
            failures["left"] -= 1
            raise httpx.ConnectError("refused")
        return await real_post(*args, **kwargs)

    waits: list[float] = []

    async def no_sleep(seconds: float) -> None:
        waits.append(seconds)

    client.post = flaky_post  # type: ignore[method-assign]
    ship = shipper(world, log, sleep=no_sleep)
    assert await ship.ship_available() == 3
    assert waits == [1.0, 2.0] and len(await stored_targets(session)) == 3


async def test_a_revoked_token_stops_the_shipper_with_the_servers_message(session, world):
    log = world[2] / "access.log"
    log.write_text(lines("a", 3))
    ship = shipper(world, log)
    ship.token = "sdi_revoked-or-wrong"
    with pytest.raises(ShipperStopped, match="ingest token"):
        await ship.ship_available()
    assert await stored_targets(session) == []


def test_the_command_refuses_a_missing_or_wrong_token_file(tmp_path, capsys):
    from secdash.cli import main

    log = tmp_path / "access.log"
    log.write_text(lines("a", 1))
    assert main(["ship", "--site", "shop", "--token-file", str(tmp_path / "none"), str(log)]) == 2
    assert "--token-file" in capsys.readouterr().err
    wrong = tmp_path / "token"
    wrong.write_text("hunter2\n")
    assert main(["ship", "--site", "shop", "--token-file", str(wrong), str(log)]) == 2
    assert "does not hold an ingest token" in capsys.readouterr().err
    assert main(["ship", "--site", "../x", "--token-file", str(wrong), str(log)]) == 2
