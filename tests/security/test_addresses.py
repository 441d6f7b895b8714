"""What one address may hold and do, whatever names and sockets it uses (what was mended: a
room filled by one address's guests, a flood from many sockets, chat at any table, half-open
sockets without bound)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import resource
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import asdict
from pathlib import Path

import httpx
import pytest
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import ClientConnection, connect

from tapisvert.server import rooms, table_service, users
from tapisvert.server.addresses import Addresses, TokenBucket
from tapisvert.server.errors import ServerError
from tapisvert.server.links import OPEN_FILES_WANTED, address_key
from tapisvert.server.lobby import Lobby, Settings, User
from tapisvert.server.quotas import Quotas, QuotaSettings
from tapisvert.server.registry import TableRegistry
from tapisvert.server.storage import SqlStorage, TableRow
from tapisvert.server.table_service import OPEN_TABLES_PER_ADDRESS
from tapisvert.server.tables import GameTable

from server_support import Server, one_round_game, serving, sqlite_url


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    with serving(tmp_path_factory.mktemp("addresses")) as running:
        yield running


def guest_from(server: Server, address: str, name: str) -> str:
    answer = httpx.post(
        f"{server.url}/api/guest", json={"name": name}, headers={"X-Forwarded-For": address}
    )
    answer.raise_for_status()
    return str(answer.json()["token"])


def call_from(
    server: Server, address: str, token: str, path: str, **body: object
) -> httpx.Response:
    headers = {"X-Forwarded-For": address, "Authorization": f"Bearer {token}"}
    return httpx.post(f"{server.url}{path}", json=body, headers=headers)


@contextlib.contextmanager
def socket_from(server: Server, address: str) -> Iterator[ClientConnection]:
    with connect(
        server.ws_url, additional_headers={"X-Forwarded-For": address}, max_size=None
    ) as link:
        yield link


def greet(link: ClientConnection, token: str) -> dict[str, object]:
    link.send(json.dumps({"type": "hello", "version": 1, "token": token}))
    return dict(json.loads(link.recv(timeout=5)))


def test_an_address_holds_a_bounded_number_of_sockets_greeted_or_not(server: Server) -> None:
    """Mended: 1,000 half-open sockets were all held."""
    limit = QuotaSettings().sockets_per_address
    with contextlib.ExitStack() as held:
        for _ in range(limit):
            held.enter_context(socket_from(server, "198.51.100.20"))
        with socket_from(server, "198.51.100.20") as refused:
            answer = json.loads(refused.recv(timeout=5))
            assert answer["code"] == "too_many_sockets_here"
            assert str(limit) in answer["message"]
        with socket_from(server, "198.51.100.21") as other:  # another address is served
            token = guest_from(server, "198.51.100.21", "other-address")
            assert greet(other, token)["type"] == "welcome"


def test_the_sockets_of_one_address_share_one_rate() -> None:
    clock = Clock()
    addresses = Addresses(Quotas(QuotaSettings(), clock=clock), rate=10.0, clock=clock)
    buckets = [addresses.open("a") for _ in range(5)]
    assert len({id(bucket) for bucket in buckets}) == 1
    taken = sum(buckets[index % 5].take() for index in range(200))
    assert taken == 2 * 10 * QuotaSettings().address_rate_share  # one burst for them all
    assert addresses.open("b").take()  # another address has its own
    clock.now += 1
    assert buckets[0].take()
    for _ in range(5):
        addresses.close("a")
    assert addresses.sockets("a") == 0


def test_an_address_whose_sockets_keep_flooding_is_barred_for_a_while() -> None:
    clock = Clock()
    addresses = Addresses(Quotas(QuotaSettings(floods="3/minute"), clock=clock), 30.0, clock)
    assert not addresses.flooded("a") and not addresses.flooded("a")
    assert addresses.flooded("a")
    with pytest.raises(ServerError) as barred:
        addresses.open("a")
    assert barred.value.code == "address_barred"
    assert "in a minute" in barred.value.render("en")
    addresses.open("b")
    clock.now += 61
    addresses.open("a")


def test_a_token_bucket_refills_at_its_rate() -> None:
    clock = Clock()
    bucket = TokenBucket(2.0, clock)
    assert [bucket.take() for _ in range(5)] == [True] * 4 + [False]
    clock.now += 0.5
    assert bucket.take() and not bucket.take()


def test_a_flooding_address_is_cut_off_everywhere_and_others_play_on(server: Server) -> None:
    flooder = "198.51.100.30"
    tokens = [guest_from(server, flooder, f"flood-{number}") for number in range(4)]
    bystander = guest_from(server, "192.0.2.30", "bystander")
    with socket_from(server, flooder) as quiet, socket_from(server, "192.0.2.30") as other:
        assert greet(quiet, tokens[0])["type"] == "welcome"
        assert greet(other, bystander)["type"] == "welcome"
        for token in tokens[1:]:
            with socket_from(server, flooder) as link:
                greet(link, token)
                with contextlib.suppress(ConnectionClosed, OSError):
                    for number in range(5000):
                        link.send(json.dumps({"type": "ping", "id": f"p{number}"}))
        codes = set()
        with contextlib.suppress(ConnectionClosed, TimeoutError):
            deadline = time.monotonic() + 5
            while time.monotonic() < deadline:
                codes.add(json.loads(quiet.recv(timeout=5)).get("code"))
        assert "address_barred" in codes  # its quiet socket was cut too
        with socket_from(server, flooder) as again:
            assert json.loads(again.recv(timeout=5))["code"] == "address_barred"
        other.send(json.dumps({"type": "ping", "id": "still-here"}))
        answer = json.loads(other.recv(timeout=5))
        assert (answer["type"], answer["id"]) == ("ack", "still-here")


def test_one_address_cannot_fill_a_room_with_tables(server: Server) -> None:
    """Mended: 12 guests of one address made 360 tables in 2.1 s."""
    address = "198.51.100.40"
    tokens = [guest_from(server, address, f"filler-{number}") for number in range(12)]
    answers = [
        call_from(server, address, token, "/api/tables", game="luz", players=3)
        for token in tokens
        for _ in range(5)
    ]
    made = [answer for answer in answers if answer.status_code == 200]
    assert len(made) == OPEN_TABLES_PER_ADDRESS
    codes = [answer.json()["code"] for answer in answers if answer.status_code != 200]
    assert set(codes) == {"too_many_open_tables", "address_tables"}
    messages = {
        answer.json()["code"]: answer.json()["message"]
        for answer in answers
        if answer.status_code != 200
    }
    assert "start or leave one" in messages["too_many_open_tables"]
    assert "your address has opened" in messages["address_tables"]


def test_the_addresses_of_one_ipv6_network_count_as_one() -> None:
    """A subscriber's /64 holds more addresses than any quota: it is one address here."""
    assert address_key("2001:db8:1:2::5") == address_key("2001:db8:1:2:ffff::9")
    assert address_key("2001:db8:1:2::5") != address_key("2001:db8:1:3::5")
    assert address_key("::ffff:192.0.2.7") == address_key("192.0.2.7") == "192.0.2.7"


def test_a_user_from_a_node_of_another_version_is_understood() -> None:
    sent = {**asdict(User(7, "ann", False, "s", "192.0.2.8")), "later_field": 1}
    assert users.user_from(sent) == User(7, "ann", False, "s", "192.0.2.8")
    older = {"id": 7, "name": "ann", "guest": False, "session": "s"}
    assert users.user_from(older).address == "?"


def test_one_may_chat_only_at_a_table_where_one_sits_or_watches(server: Server) -> None:
    """Mended: anyone signed in could chat at any table."""
    owner = guest_from(server, "192.0.2.50", "chat-owner")
    table = call_from(server, "192.0.2.50", owner, "/api/tables", game="luz", players=3)
    number = table.json()["table"]
    stranger = guest_from(server, "192.0.2.51", "chat-stranger")
    refused = call_from(server, "192.0.2.51", stranger, "/api/chat", table=number, text="hi")
    assert refused.status_code == 403 and refused.json()["code"] == "chat_not_at_table"
    said = call_from(server, "192.0.2.50", owner, "/api/chat", table=number, text="hello")
    assert said.is_success


def test_a_table_number_out_of_range_is_refused_before_any_look_up(server: Server) -> None:
    """Mended: the review of table 9223372036854775808 answered 503 (storage)."""
    token = guest_from(server, "192.0.2.60", "range-checker")
    for path in ("review?seat=0", "replay", "record", ""):
        answer = httpx.get(
            f"{server.url}/api/tables/9223372036854775808/{path}".rstrip("/"),
            headers={"Authorization": f"Bearer {token}"},
        )
        assert answer.status_code == 404, (path, answer.text)
        assert answer.json()["code"] == "no_such_table"


def test_a_server_allowed_too_few_open_files_says_so() -> None:
    script = (
        "import logging, resource; logging.basicConfig();"
        "resource.setrlimit(resource.RLIMIT_NOFILE, (256, 256));"
        "from tapisvert.server.links import allow_open_files; print(allow_open_files())"
    )
    ran = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
    assert ran.stdout.strip() == "256"
    assert "may open 256 files only" in ran.stderr and "ulimit -n" in ran.stderr
    raised = subprocess.run(
        [sys.executable, "-c", script.replace("(256, 256)", f"(256, {hard})")],
        capture_output=True,
        text=True,
    )
    wanted = OPEN_FILES_WANTED if hard == resource.RLIM_INFINITY else min(OPEN_FILES_WANTED, hard)
    assert int(raised.stdout) == wanted
    assert ("files only" in raised.stderr) == (wanted < OPEN_FILES_WANTED)


def test_a_rematch_counts_as_a_new_table(tmp_path: Path) -> None:
    """Mended: rematch tables skipped the quota of tables."""
    with serving(tmp_path, rate=1.0) as slow:  # every quota a thirtieth: one table an hour
        token = slow.guest("rematcher")
        table = one_round_game(slow, token, seed=3)
        rematch = slow.call(token, "POST", f"/api/tables/{table}/rematch")
    assert rematch.status_code == 429 and rematch.json()["code"] == "rate_limited"


def test_the_open_tables_counted_are_those_still_waiting_for_players() -> None:
    """The quotas on opening a table count the open tables of a room or an address among the
    open ones only, which the registry keeps apart: a table's making scanned every table in
    memory, thousands on a busy node (finished ones stay for minutes)."""
    registry = TableRegistry()
    made = []
    for table_id, status in enumerate(["open", "open", "open", "playing", "finished"], 1):
        row = TableRow("luz", "luz", 3, {}, table_id, None, status, [{}] * 3, id=table_id)
        made.append(GameTable(row, host=None))  # type: ignore[arg-type]  # none needed here
        registry.hold(made[-1])
    assert [table.id for table in registry.open_tables()] == [1, 2, 3]
    made[0].status = "playing"  # started
    made[1].status = "closed"  # abandoned, still in memory
    registry.let_go(made[2])
    assert registry.open_tables() == []
    registry.hold(made[2])  # taken back (another node let it go)
    assert registry.open_tables() == [made[2]]


def test_a_rooms_tables_are_found_among_its_own() -> None:
    """A room's listing, made at every entrance, looks at the tables the registry holds for
    that room, whatever their state, and at no other: it scanned every table in memory."""
    registry = TableRegistry()
    made = []
    for table_id, (room, status) in enumerate(
        [("luz", "open"), ("wizard", "open"), ("luz", "finished"), ("luz", "playing")], 1
    ):
        row = TableRow(room, "luz", 3, {}, table_id, None, status, [{}] * 3, id=table_id)
        made.append(GameTable(row, host=None))  # type: ignore[arg-type]  # none needed here
        registry.hold(made[-1])
    assert registry.room_tables("luz") == [made[0], made[2], made[3]]
    assert registry.room_tables("wizard") == [made[1]]
    assert registry.room_tables("fzzzt") == []
    registry.let_go(made[1])
    registry.let_go(made[2])
    assert registry.room_tables("wizard") == []
    assert registry.room_tables("luz") == [made[0], made[3]]
    registry.hold(made[1])  # taken back (another node let it go)
    assert registry.room_tables("wizard") == [made[1]]


def test_a_rooms_listing_is_bounded_open_tables_first(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Mended: a room's listing grew to 502 KiB, rebuilt at every entrance."""
    monkeypatch.setattr(rooms, "ROOM_LISTING", 5)
    monkeypatch.setattr(table_service, "OPEN_TABLES_PER_ROOM", 4)

    async def scenario() -> None:
        lobby = Lobby(SqlStorage(sqlite_url(tmp_path)), settings=Settings(bot_delay=30.0))
        await lobby.start()
        try:
            people = [
                (await lobby.accounts.guest(f"lister-{n}", f"192.0.2.{n}"))[1] for n in range(7)
            ]
            for person in people[:2]:  # two tables in play
                table = await lobby.tables.create_table(person, "luz", "luz", 3, {}, None)
                for _ in range(2):
                    await lobby.tables.add_bot(person, table.id, "easy", None)
                await lobby.tables.start_game(person, table.id)
            for person in people[2:6]:
                await lobby.tables.create_table(person, "luz", "luz", 3, {}, None)
            with pytest.raises(ServerError) as full:
                await lobby.tables.create_table(people[6], "luz", "luz", 3, {}, None)
            assert full.value.code == "room_full"
            listed = (await lobby.rooms.room_info("luz")).tables
            assert [info.status for info in listed].count("open") == 4
            assert len(listed) == 5 and [info.table for info in listed] == sorted(
                info.table for info in listed
            )
        finally:
            await lobby.stop()

    asyncio.run(scenario())
