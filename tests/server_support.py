"""A real server in a subprocess and real WebSocket clients that play through it."""

from __future__ import annotations

import asyncio
import base64
import contextlib
import itertools
import json
import os
import random
import shutil
import signal
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import psycopg
import pytest
import websockets
from alembic import command
from alembic.config import Config
from sqlalchemy import Engine, create_engine
from websockets.sync.client import ClientConnection

import preloaded
from tapisvert.client import merged_view
from tapisvert.core.records import Record, parse_record
from tapisvert.server.storage import MIGRATIONS


async def until(test: Callable[[], bool], seconds: float = 5.0) -> None:
    """Wait for ``test`` to hold, failing after ``seconds``: wait for the event itself,
    not for a time that is long enough on an idle machine."""
    deadline = time.monotonic() + seconds
    while not test():
        if time.monotonic() > deadline:
            raise AssertionError("it did not happen in time")
        await asyncio.sleep(0.01)


LOWEST_PORT = 10000
"""Above the services' usual ports. The range below the ephemeral one is as wide as can be:
two tests that drew the same port before either listened there would share it (the relays
listen with ``SO_REUSEPORT``), each getting the other's connections; or the second server,
unable to listen, would be taken for started when the first answered in its place."""
_PORTS = random.SystemRandom()
"""Ports drawn apart from ``random``'s seeded state, so that parallel test processes differ."""
_GIVEN: set[int] = set()
"""The ports this process gave out: never twice, for a server given one may not listen yet."""


def free_port() -> int:
    """A port nothing listens on, below the range the system takes clients' ports from: a
    port from that range, once its server stops (a restart), can become the local port of any
    connection made meanwhile, and the server could not listen there again. Each of
    pytest-xdist's test processes draws from a share of the range of its own, and gives no
    port twice: no two servers of the suite are given the same port."""
    lowest_ephemeral = 32768
    ranges = Path("/proc/sys/net/ipv4/ip_local_port_range")
    if ranges.exists():
        lowest_ephemeral = int(ranges.read_text().split()[0])
    worker = os.environ.get("PYTEST_XDIST_WORKER", "gw0")
    shares = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1"))
    width = (lowest_ephemeral - LOWEST_PORT) // shares
    lowest = LOWEST_PORT + int(worker.removeprefix("gw")) % shares * width
    while True:
        port = _PORTS.randrange(lowest, lowest + width)
        if port in _GIVEN:
            continue
        with socket.socket() as probe:
            try:
                probe.bind(("127.0.0.1", port))
            except OSError:
                continue
        _GIVEN.add(port)
        return port


PASSWORD = "secret-enough"
"""The password of the accounts the tests register."""
STARTING_SECONDS = 120
"""How long a server may take to answer: a few seconds alone, far longer when the tests run
in parallel on a machine that is busy with more (its imports are most of it)."""


TEST_PASSWORD_MEMORY = 1024


class Server:
    """``tapisvert serve`` in its own process, on a free port, with the given database."""

    def __init__(
        self,
        database_url: str,
        log: Path,
        environment: dict[str, str] | None = None,
        **settings: float | str,
    ) -> None:
        self.database_url = database_url
        self.environment = environment
        """The process's environment (default: this one's)."""
        self.port = free_port()
        self.log = log
        self.settings = {
            "bot-delay": 0.0,
            "absence-grace": 30.0,
            # A 64th of the default argon2 memory: the suite makes hundreds of passwords,
            # each a fifth of a second of a core at the default (see test_passwords).
            "password-memory": TEST_PASSWORD_MEMORY,
            **settings,
        }
        self.socket_port = free_port() if settings.get("relays") else None
        """The relays' port, where clients' sockets go, if the server has relays."""
        if self.socket_port is not None:
            self.settings["socket-port"] = self.socket_port
        self.process: subprocess.Popen[bytes] | preloaded.ForkedProcess | None = None
        self.http = httpx.Client(timeout=30)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def ws_port(self) -> int:
        """Where clients' sockets go: the relays' port, or the server's own."""
        return self.socket_port or self.port

    @property
    def ws_url(self) -> str:
        return f"ws://127.0.0.1:{self.ws_port}/ws"

    def start(self) -> Server:
        command = ["serve", "--port", str(self.port), "--database-url", self.database_url]
        for name, value in self.settings.items():
            command += [f"--{name}", str(value)]
        self.process = preloaded.start(command, self.log, self.environment)
        deadline = time.monotonic() + STARTING_SECONDS
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"the server stopped: {self.log.read_text()[-2000:]}")
            try:
                httpx.get(f"{self.url}/api/games", timeout=1).raise_for_status()
                if self.socket_port is not None:  # the relays listen once they hear the node
                    socket.create_connection(("127.0.0.1", self.socket_port), timeout=1).close()
                return self
            except (httpx.HTTPError, OSError):
                time.sleep(0.05)
        raise RuntimeError(f"the server did not start within {STARTING_SECONDS} s")

    def relays(self) -> list[int]:
        """The process ids of the server's relays."""
        assert self.process is not None
        return [child for child in children(self.process.pid) if is_relay(child)]

    def bot_workers(self) -> list[int]:
        """The process ids of the server's other children: the processes its bots think in."""
        assert self.process is not None
        return [child for child in children(self.process.pid) if not is_relay(child)]

    def kill(self) -> None:
        """kill -9: no chance to flush or say goodbye."""
        if self.process is not None:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait()
            self.process = None

    def stop(self) -> None:
        """Ctrl+C (SIGINT): the server stops at once, committing what is queued, without
        the drain SIGTERM starts (waiting for its clients to go: see ``test_server_drain``)."""
        if self.process is not None:
            self.process.send_signal(signal.SIGINT)
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.kill()
            self.process = None

    def guest(self, name: str) -> str:
        response = self.http.post(f"{self.url}/api/guest", json={"name": name})
        response.raise_for_status()
        return str(response.json()["token"])

    def register(self, name: str) -> str:
        """A new account's token (its password: ``PASSWORD``)."""
        response = self.http.post(
            f"{self.url}/api/register", json={"name": name, "password": PASSWORD}
        )
        response.raise_for_status()
        return str(response.json()["token"])

    def call(self, token: str, method: str, path: str, **body: Any) -> httpx.Response:
        return self.http.request(
            method,
            f"{self.url}{path}",
            json=body if method != "GET" else None,
            headers={"Authorization": f"Bearer {token}"},
        )

    def record(self, table: int, form: str = "json") -> Record:
        response = self.http.get(f"{self.url}/api/tables/{table}/record", params={"format": form})
        response.raise_for_status()
        return parse_record(response.text)


@dataclass
class Acked:
    table: int
    position: int
    seat: int
    action: str


@dataclass
class Player:
    """A scripted person: takes a seat, then plays a random legal move whenever it may.

    It keeps every frame it received (for the leak scan) and every acknowledged move
    (for the crash test: its seat's next view names it), and reconnects with its token
    when the server goes away or tells it to (``reconnect``).
    """

    server: Server
    token: str
    seed: int
    watching: tuple[int, ...] = ()
    """Tables to watch as a spectator."""
    frames: list[dict[str, Any]] = field(default_factory=list)
    acked: list[Acked] = field(default_factory=list)
    views: dict[int, dict[str, Any]] = field(default_factory=dict)
    finished: set[int] = field(default_factory=set)
    errors: list[dict[str, Any]] = field(default_factory=list)
    requests: set[str] = field(default_factory=set)
    """The id of every move it sent."""
    before_move: Callable[[], Awaitable[None]] | None = None
    """Awaited before each move it chooses: a test holds the game there."""
    welcomes: int = 0
    """Connections the server greeted."""
    reconnects: int = 0
    """Times the server told it to reconnect."""
    _ids: itertools.count[int] = field(default_factory=itertools.count)

    async def play(self, tables: set[int], reconnect: bool = False) -> None:
        """Play until every table in ``tables`` is finished."""
        rng = random.Random(self.seed)
        while not tables <= self.finished:
            try:
                async with websockets.connect(self.server.ws_url, max_size=None) as link:
                    hello = {"type": "hello", "version": 1, "token": self.token}
                    await link.send(json.dumps(hello))
                    for table in self.watching:
                        await link.send(json.dumps({"type": "watch", "table": table}))
                    try:
                        await self._play_on(link, tables, rng)
                    except websockets.ConnectionClosed:
                        await self._read_what_is_left(link)
                        raise
            except (OSError, websockets.ConnectionClosed, websockets.InvalidHandshake):
                # a server killed during the handshake answers nothing (InvalidMessage)
                if not reconnect:
                    raise
                await asyncio.sleep(0.05)

    async def _read_what_is_left(self, link: Any) -> None:
        """The frames that came before the socket closed: a move sent as the server said
        "reconnect" and closed fails to send, with that frame still unread."""
        with contextlib.suppress(websockets.ConnectionClosed):
            while True:
                frame = json.loads(await link.recv())
                self.frames.append(frame)
                if frame["type"] == "reconnect":
                    self.reconnects += 1

    async def _play_on(self, link: Any, tables: set[int], rng: random.Random) -> None:
        pending: dict[str, tuple[int, int, int, str]] = {}
        while not tables <= self.finished:
            frame = json.loads(await link.recv())
            self.frames.append(frame)
            kind = frame["type"]
            if kind == "reconnect":  # the server is stopping: the socket closes next
                self.reconnects += 1
                return
            if kind == "welcome":
                self.welcomes += 1
            elif kind == "error":
                self.errors.append(frame)
                if frame["code"] == "draining":  # refused by a node that is stopping
                    await asyncio.sleep(0.05)
                    return
                refused = pending.pop(frame.get("id") or "", None)
                if refused is not None and frame["code"] == "rate_limited":
                    await asyncio.sleep(0.1)
                    await self._send_move(link, pending, *refused)
            elif kind == "ack" and frame.get("id") in pending:
                raise AssertionError(f"a move answered apart from its seat's view: {frame}")
            elif kind == "view":
                if frame["ack"] in pending:  # the mover's view acknowledges its move
                    self.acked.append(Acked(*pending.pop(frame["ack"])))
                table = frame["table"]
                previous = self.views.get(table, {}).get("view", {})
                frame["view"] = merged_view(previous, frame)
                self.views[table] = frame
                if frame["result"] is not None:
                    self.finished.add(table)
                elif frame["legal"] and frame["to_act"] == frame["seat"]:
                    if self.before_move is not None:
                        await self.before_move()
                    action = rng.choice(frame["legal"])
                    await self._send_move(link, pending, table, frame["seq"], frame["seat"], action)

    async def _send_move(
        self,
        link: Any,
        pending: dict[str, tuple[int, int, int, str]],
        table: int,
        position: int,
        seat: int,
        action: str,
    ) -> None:
        request = f"m{self.seed}-{next(self._ids)}"  # unique among the players
        self.requests.add(request)
        pending[request] = (table, position, seat, action)
        message = {"type": "act", "id": request, "table": table, "seq": position, "action": action}
        await link.send(json.dumps(message))


def set_up_table(
    server: Server,
    tokens: list[str],
    game: str,
    players: int,
    bots: str = "easy",
    options: dict[str, str] | None = None,
) -> int:
    """A started table: the people in seats 1, 2…, bots of level ``bots`` in the rest."""
    created = server.call(
        tokens[0], "POST", "/api/tables", game=game, players=players, options=options or {}
    )
    created.raise_for_status()
    table = int(created.json()["table"])
    for seat, token in enumerate(tokens[1:], start=1):
        server.call(token, "POST", f"/api/tables/{table}/join", seat=seat).raise_for_status()
    for _ in range(players - len(tokens)):
        server.call(tokens[0], "POST", f"/api/tables/{table}/bots", level=bots).raise_for_status()
    server.call(tokens[0], "POST", f"/api/tables/{table}/start").raise_for_status()
    return table


def one_round_game(server: Server, token: str, seed: int = 5) -> int:
    """A one-round Wizard game of a person and two easy bots, played to its end."""
    created = server.call(
        token, "POST", "/api/tables", game="wizard", players=3, options={"rounds": "1"}
    )
    created.raise_for_status()
    table = int(created.json()["table"])
    for _ in range(2):
        server.call(token, "POST", f"/api/tables/{table}/bots", level="easy").raise_for_status()
    server.call(token, "POST", f"/api/tables/{table}/start").raise_for_status()
    asyncio.run(asyncio.wait_for(Player(server, token, seed).play({table}), 60))
    return table


def run_cli(*words: str) -> subprocess.CompletedProcess[str]:
    """``tapisvert WORDS`` in a process of its own, as an operator runs it."""
    command = [sys.executable, "-m", "tapisvert", *words]
    return subprocess.run(command, capture_output=True, text=True, timeout=60, check=False)


def admin_command(server: Server, *words: str) -> subprocess.CompletedProcess[str]:
    """``tapisvert admin WORDS`` on the server's database, from its machine."""
    return run_cli("admin", *words, "--database-url", server.database_url)


@contextmanager
def serving(folder: Path, **settings: float | str) -> Iterator[Server]:
    """A server on a SQLite file in ``folder``, stopped afterwards."""
    server = Server(sqlite_url(folder), folder / "server.log", **settings).start()
    try:
        yield server
    finally:
        server.stop()


def process_stat(pid: int, thread: int | None = None) -> list[str]:
    """The fields of /proc/PID/stat (or of the process's ``thread``) after the command name
    (Linux): ``[1]`` is the parent's id, ``[11]`` and ``[12]`` the CPU time in clock ticks."""
    path = f"/proc/{pid}/stat" if thread is None else f"/proc/{pid}/task/{thread}/stat"
    return Path(path).read_text().rpartition(")")[2].split()


def running(pid: int) -> bool:
    """Whether process ``pid`` still runs: a process that exited but that nobody has reaped
    yet (a zombie, state ``Z``) does not."""
    try:
        return process_stat(pid)[0] != "Z"
    except OSError:
        return False


def children(pid: int) -> list[int]:
    """The processes whose parent is ``pid``, read from /proc."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            with contextlib.suppress(OSError):
                if int(process_stat(int(entry.name))[1]) == pid:
                    found.append(int(entry.name))
    return found


def is_relay(pid: int) -> bool:
    """Whether process ``pid`` is a relay (``tapisvert relay``), read from /proc."""
    return b"relay" in Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")


def masked_frame(payload: bytes) -> bytes:
    """A client's WebSocket text frame (RFC 6455), masked as clients must."""
    key = os.urandom(4)
    length = len(payload)
    if length < 126:
        head = bytes([0x81, 0x80 | length])
    elif length < 1 << 16:
        head = bytes([0x81, 0x80 | 126]) + length.to_bytes(2, "big")
    else:
        head = bytes([0x81, 0x80 | 127]) + length.to_bytes(8, "big")
    mask = int.from_bytes((key * (length // 4 + 1))[:length], "big")
    body = (int.from_bytes(payload, "big") ^ mask).to_bytes(length, "big")
    return head + key + body


def raw_websocket(
    port: int,
    token: str,
    receive_buffer: int | None = None,
    headers: dict[str, str] | None = None,
) -> socket.socket:
    """A WebSocket over a bare socket, greeted with ``token``: a client that reads only
    when, and what, its caller decides (the server's answers pile up until then).
    ``headers`` are added to the handshake (``X-Forwarded-For``, say)."""
    raw = socket.socket()
    if receive_buffer is not None:
        raw.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, receive_buffer)
    raw.connect(("127.0.0.1", port))
    key = base64.b64encode(os.urandom(16)).decode()
    extra = "".join(f"{name}: {value}\r\n" for name, value in (headers or {}).items())
    raw.sendall(
        (
            f"GET /ws HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\n"
            f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
            f"Sec-WebSocket-Version: 13\r\n{extra}\r\n"
        ).encode()
    )
    answer = b""
    while not answer.endswith(b"\r\n\r\n"):  # the handshake's answer, byte by byte
        answer += raw.recv(1)
    assert answer.startswith(b"HTTP/1.1 101"), answer
    hello = {"type": "hello", "version": 1, "token": token}
    raw.sendall(masked_frame(json.dumps(hello).encode()))
    return raw


def entered(link: ClientConnection, room: str = "main") -> None:
    """Enter ``room`` on a greeted socket and wait for the answer: from then on the socket
    hears what is said there."""
    link.send(json.dumps({"type": "enter", "room": room, "id": "entered"}))
    while json.loads(link.recv(timeout=10)).get("id") != "entered":
        pass


DEPLOY = Path(__file__).resolve().parent.parent / "deploy"
"""The repository's deployment files."""
NGINX_CONFIG = DEPLOY / "nginx" / "tapisvert.conf"
"""The load balancer's configuration that the deployment page shows."""


def nginx_or_skip() -> str:
    """The nginx program, or the test is skipped, saying why."""
    nginx = shutil.which("nginx") or "/usr/sbin/nginx"
    if not Path(nginx).exists():
        pytest.skip("nginx is not installed (scripts/setup --test installs Debian's nginx-light)")
    return nginx


def nginx_config(folder: Path, block: str) -> Path:
    """A whole nginx configuration around ``block`` (what goes in ``http``), with its pid and
    logs in ``folder``: nginx runs it with ``-p folder``, without root."""
    config = folder / "nginx.conf"
    config.write_text(
        f"pid {folder}/nginx.pid;\nerror_log {folder}/error.log;\nevents {{}}\n"
        f"http {{\naccess_log off;\n{block}}}\n"
    )
    return config


def sqlite_url(folder: Path) -> str:
    return f"sqlite:///{folder / 'tapisvert.sqlite3'}"


def postgres_url() -> str | None:
    """The PostgreSQL database the tests may use, if one answers."""
    url = os.environ.get("TAPISVERT_TEST_POSTGRES", "postgresql://postgres@127.0.0.1:5432/test")
    try:
        socket.create_connection(("127.0.0.1", 5432), timeout=1).close()
    except OSError:
        return None
    return url


def postgres_database() -> Iterator[str]:
    """A new, empty PostgreSQL database for one test, dropped afterwards."""
    base = postgres_url()
    if base is None:
        pytest.skip("no PostgreSQL server answers on 127.0.0.1:5432 (set TAPISVERT_TEST_POSTGRES)")
    with scratch_database(base) as url:
        yield url


@contextmanager
def scratch_database(base: str) -> Iterator[str]:
    """A new, empty database on the PostgreSQL server of the URL ``base``, dropped afterwards."""
    name = f"tapisvert_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(base, autocommit=True) as admin:
        admin.execute(f"CREATE DATABASE {name}")
    try:
        yield base.rsplit("/", 1)[0] + f"/{name}"
    finally:
        with psycopg.connect(base, autocommit=True) as admin:
            admin.execute(f"DROP DATABASE {name} WITH (FORCE)")


def engine_for(url: str) -> Engine:
    return create_engine(url.replace("postgresql://", "postgresql+psycopg://"))


def migrate(url: str, revision: str, down: bool = False) -> None:
    engine = engine_for(url)
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    with engine.begin() as connection:
        config.attributes["connection"] = connection
        (command.downgrade if down else command.upgrade)(config, revision)
    engine.dispose()


VIEW_KEYS = {
    "type",
    "table",
    "seq",
    "ack",
    "seat",
    "to_act",
    "legal",
    "deadline",
    "full",
    "view",
    "result",
    "winners",
    "take_back",
}
OTHER_TYPES = {"welcome", "table", "ack", "notice", "chat", "people", "room", "error"}


def expected_frames(record: Record, wanted: set[int]) -> dict[tuple[int, int | None], Any]:
    """Each seat's observation and legal moves after ``seq`` actions, for every wanted seq."""
    expected: dict[tuple[int, int | None], Any] = {}
    state = record.new_game().new_initial_state()
    seats: list[int | None] = [*range(record.players), None]

    def note(seq: int) -> None:
        if seq not in wanted:
            return
        to_act = state.current_player()
        for seat in seats:
            legal = [state.action_to_string(action) for action in state.legal_actions()]
            expected[(seq, seat)] = (
                json.loads(json.dumps(state.observation(seat).to_dict())),
                legal if to_act == seat else [],
            )

    note(0)
    for seq, text in enumerate(record.actions, start=1):
        state.apply_string(text)
        note(seq)
    return expected


def assert_frames_leak_nothing(
    views: list[tuple[Player, int | None]], record: Record, seed: str, game: str
) -> None:
    """Every frame each client got shows exactly what its seat (``None``: a spectator) may
    see at that point of the game, and nothing else: no seed, no other seat's hand, no one
    else's request ids."""
    wanted = {frame["seq"] for client, _ in views for frame in client.frames if "seq" in frame}
    expected = expected_frames(record, wanted)
    checked = 0
    for client, seat in views:
        for frame in client.frames:
            assert seed not in json.dumps(frame)
            if frame["type"] != "view":
                assert frame["type"] in OTHER_TYPES
                assert "view" not in frame and "seed" not in frame
                continue
            assert set(frame) - {"append"} == VIEW_KEYS  # "append" when a history grew
            assert frame["seat"] == seat
            assert frame["ack"] is None or frame["ack"] in client.requests  # only one's own
            observation, legal = expected[(frame["seq"], seat)]
            assert frame["view"] == observation
            assert frame["legal"] == legal
            assert frame["take_back"] is False or seat is not None  # a seat's own, never watched
            if game == "luz":  # one's own values, and every value for a spectator, stay hidden
                hidden = frame["view"]["hands"] if seat is None else [frame["view"]["hands"][seat]]
                assert all(card is None or card.endswith("?") for hand in hidden for card in hand)
            checked += 1
    assert checked > 50


Frame = dict[str, Any]


class Link:
    """One person's WebSocket, with a way to wait for the frame one expects."""

    def __init__(self, socket: Any) -> None:
        self.socket = socket
        self.seen: list[Frame] = []

    async def send(self, **message: Any) -> None:
        await self.socket.send(json.dumps(message))

    async def expect(self, test: Callable[[Frame], bool], seconds: float = 10) -> Frame:
        async def wait() -> Frame:
            while True:
                frame: Frame = json.loads(await self.socket.recv())
                self.seen.append(frame)
                if test(frame):
                    return frame

        return await asyncio.wait_for(wait(), seconds)

    async def answer(self, **message: Any) -> Frame:
        """Send a request with an id and return the ack or error that answers it."""
        request = f"r{len(self.seen)}-{id(message)}"
        await self.send(id=request, **message)
        return await self.expect(lambda frame: frame.get("id") == request)


@asynccontextmanager
async def link(server: Server, token: str, language: str = "en") -> AsyncIterator[Link]:
    """A person's connection, greeted. Its frames are all read off the socket as they come
    (``max_queue=None``) so that a test may hold it without reading: a bounded queue, once
    full, would leave the server's closing frame unread and each close waiting its 10 s."""
    async with websockets.connect(server.ws_url, max_queue=None) as socket:
        opened = Link(socket)
        await opened.send(type="hello", version=1, token=token, language=language)
        welcome = await opened.expect(lambda frame: True)
        assert welcome["type"] == "welcome" and welcome["language"] == language
        yield opened


def of_type(kind: str, **fields: Any) -> Callable[[Frame], bool]:
    return lambda frame: (
        frame["type"] == kind and all(frame.get(name) == value for name, value in fields.items())
    )
