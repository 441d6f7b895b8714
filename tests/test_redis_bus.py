"""The pub/sub port over a real Redis server: two adapters in one test are two nodes."""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
import redis
from typer.testing import CliRunner

from redis_support import REDIS_URL, redis_share, until  # noqa: F401  (a fixture)
from tapisvert.cli.main import app
from tapisvert.server.pubsub import Frame
from tapisvert.server.redis_bus import RedisPubSub, bus_prefix

from server_support import Player, Server, merged_view, serving, set_up_table

CHANNEL = "table:7:seat:1"
pytestmark = pytest.mark.usefixtures("redis_share")


@asynccontextmanager
async def nodes(count: int) -> AsyncIterator[list[RedisPubSub]]:
    started = [RedisPubSub(REDIS_URL) for _ in range(count)]
    for node in started:
        await node.start()
    try:
        yield started
    finally:
        for node in started:
            await node.close()


def collector() -> tuple[list[Frame], Callable[[Frame], None]]:
    received: list[Frame] = []
    return received, received.append


def test_frames_cross_to_another_node_in_order() -> None:
    async def scenario() -> None:
        async with nodes(2) as (here, there):
            far, far_reader = collector()
            near, near_reader = collector()
            there.subscribe(CHANNEL, far_reader)
            here.subscribe(CHANNEL, near_reader)
            await until(lambda: CHANNEL in there._followed)
            sent: list[Frame] = []
            for number in range(300):
                frame: Frame = (
                    {"type": "notice", "key": "server.notice.back", "arguments": {"n": number}}
                    if number % 7 == 0
                    else json.dumps({"type": "view", "seq": number, "text": 'é\n"ü'})
                )
                sent.append(frame)
                here.publish(CHANNEL, frame)
            assert near == sent  # at once, and once: its own frames coming back are ignored
            await until(lambda: len(far) == len(sent))
            assert far == sent
            assert [type(frame) for frame in far] == [type(frame) for frame in sent]
            await asyncio.sleep(0.1)
            assert len(near) == len(sent)

    asyncio.run(scenario())


def test_one_frame_on_two_channels_arrives_as_one_object() -> None:
    """A connection following both a room and a table sends a table's news once."""

    async def scenario() -> None:
        async with nodes(2) as (here, there):
            received, reader = collector()
            there.subscribe("room:main", reader)
            there.subscribe("table:7", reader)
            await until(lambda: {"room:main", "table:7"} <= there._followed)
            news = json.dumps({"type": "table"})
            here.publish("room:main", news)
            here.publish("table:7", news)
            here.publish("table:7", json.dumps({"type": "chat"}))
            here.publish("table:7", json.dumps({"type": "chat"}))  # equal, not the same
            await until(lambda: len(received) == 4)
            assert received[0] is received[1]
            assert received[2] == received[3]

    asyncio.run(scenario())


def test_has_subscribers_counts_other_nodes_and_unsubscribing_ends_delivery() -> None:
    async def scenario() -> None:
        async with nodes(2) as (here, there):
            received, reader = collector()
            assert not here.has_subscribers(CHANNEL)
            there.subscribe(CHANNEL, reader)
            assert there.has_subscribers(CHANNEL)
            await until(lambda: here.has_subscribers(CHANNEL))
            here.publish(CHANNEL, "one")
            await until(lambda: received == ["one"])
            there.unsubscribe(CHANNEL, reader)
            assert not there.has_subscribers(CHANNEL)
            await until(lambda: not here.has_subscribers(CHANNEL))
            with redis.Redis.from_url(REDIS_URL) as client:
                name = bus_prefix() + CHANNEL
                assert client.pubsub_numsub(name) == [(name.encode(), 0)]
            here.publish(CHANNEL, "two")
            await asyncio.sleep(0.2)
            assert received == ["one"]

    asyncio.run(scenario())


def test_an_unreachable_redis_is_an_error_at_start() -> None:
    async def scenario() -> None:
        await RedisPubSub("redis://127.0.0.1:1").start()

    with pytest.raises(redis.ConnectionError):
        asyncio.run(scenario())


def test_a_lost_connection_is_said_and_made_again(caplog: pytest.LogCaptureFixture) -> None:
    """Redis drops both nodes' connections: each says so, connects again, follows its
    channels again, and frames flow as before."""

    async def scenario() -> None:
        async with nodes(2) as (here, there):
            received, reader = collector()
            there.subscribe(CHANNEL, reader)
            await until(lambda: CHANNEL in there._followed)
            here.publish(CHANNEL, "before")
            await until(lambda: received == ["before"])
            with redis.Redis.from_url(REDIS_URL) as admin:
                names = {f"tapisvert-{node.node}" for node in (here, there)}
                for client in admin.client_list():
                    if client["name"] in names:
                        admin.client_kill_filter(_id=client["id"])
            # Redis keeps no frame for a subscriber that is away: frames flow again once it
            # follows the channel again (a publisher's frames wait while it reconnects)
            await until(lambda: "reading from Redis works again" in caplog.text, 15)
            await until(lambda: there.trouble is None and CHANNEL in there._followed, 15)
            for number in range(20):
                here.publish(CHANNEL, f"after {number}")
            await until(lambda: received[-1:] == ["after 19"], 15)
            assert received == ["before", *(f"after {number}" for number in range(20))]
            await until(lambda: there.trouble is None and here.trouble is None, 15)

    with caplog.at_level(logging.WARNING, "tapisvert.server.redis_bus"):
        asyncio.run(scenario())
    assert "reading from Redis failed" in caplog.text
    assert "reading from Redis works again" in caplog.text


def spectator_views(frames: list[dict[str, Any]], table: int) -> list[dict[str, Any]]:
    return [f for f in frames if f["type"] == "view" and f["table"] == table and f["seat"] is None]


@pytest.mark.slow
@pytest.mark.parametrize("bus", [False, True], ids=["in-process", "redis"])
def test_a_whole_game_through_a_server_on_redis(tmp_path: Path, bus: bool) -> None:
    """The same game plays the same way with the bus; with it, another node following the
    table's spectators hears exactly what a spectator connected here hears."""
    settings: dict[str, Any] = {"rate": 1000, **({"bus": REDIS_URL} if bus else {})}
    with serving(tmp_path, **settings) as server:
        asyncio.run(play_watched(server, bus))


async def play_watched(server: Server, bus: bool) -> None:
    players = [server.guest(name) for name in ("ana", "bob")]
    table = set_up_table(server, players, "wizard", 4)
    spectator = Player(server, server.guest("eve"), 99, watching=(table,))
    elsewhere = RedisPubSub(REDIS_URL)
    heard, reader = collector()
    await elsewhere.start()
    try:
        elsewhere.subscribe(f"table:{table}:watch", reader)
        await until(lambda: f"table:{table}:watch" in elsewhere._followed)
        seated = [Player(server, token, seed) for seed, token in enumerate(players, 1)]
        games = [player.play({table}) for player in [*seated, spectator]]
        await asyncio.wait_for(asyncio.gather(*games), 120)
        if bus:  # the end reaches the other node too
            await until(lambda: any(ended(frame) for frame in heard), 30)
        else:
            await asyncio.sleep(0.3)  # nothing to hear meanwhile, what is tested
    finally:
        await elsewhere.close()
    record = server.record(table)
    assert record.replay().is_terminal()
    assert record.result == shown_result(spectator, table)
    for player in seated:
        assert not player.errors
        assert player.acked
        assert player.views[table]["result"] == record.result
    if bus:
        shown = spectator_views(spectator.frames, table)  # merged views, the first full
        published = [json.loads(frame) for frame in heard if isinstance(frame, str)]
        tail = published[len(published) - len(shown) + 1 :]  # the first came to eve alone
        assert len(tail) == len(shown) - 1 >= 10
        view = shown[0]["view"]
        for frame, seen in zip(tail, shown[1:], strict=True):
            view = merged_view(view, frame)
            assert {**frame, "view": view} == seen
    else:
        assert heard == []


def ended(frame: object) -> bool:
    """Whether ``frame`` is a view of a table with its result."""
    return isinstance(frame, str) and json.loads(frame).get("result") is not None


def shown_result(player: Player, table: int) -> list[float]:
    result: list[float] = player.views[table]["result"]
    return result


@pytest.mark.parametrize(
    ("arguments", "said"),
    [
        (["--bus", "http://127.0.0.1:6379"], "--bus takes the URL of a Redis server"),
        (["--bus", "redis://127.0.0.1:1"], "the Redis server at redis://127.0.0.1:1 does not"),
        (["--bot-workers", "0"], "--bot-workers 0 (no worker here) needs --bus"),
    ],
)
def test_serve_refuses_a_bus_it_cannot_use(
    arguments: list[str], said: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TAPISVERT_LANG", "en")
    result = CliRunner().invoke(app, ["serve", "--port", "1", *arguments])
    assert result.exit_code == 2
    assert said in " ".join(result.output.split())
