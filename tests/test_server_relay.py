"""Relays: the bus between a relay and the server, and a relay's life tied to the server's."""

from __future__ import annotations

import asyncio
import socket
from pathlib import Path

import httpx
import pytest
from hypothesis import given
from hypothesis import strategies as st

from tapisvert.server.relay import CLOSE, FRAME, HEADER, MESSAGE, Records, Relay

from server_support import Server, sqlite_url

records = st.lists(
    st.tuples(st.sampled_from([MESSAGE, FRAME, CLOSE]), st.integers(0, 2**32 - 1), st.text()),
    max_size=20,
)


@given(records, st.lists(st.integers(0, 10_000), max_size=8))
def test_records_survive_any_cutting_of_the_stream(
    sent: list[tuple[int, int, str]], cuts: list[int]
) -> None:
    stream = b"".join(
        HEADER.pack(len(text.encode()), number, kind) + text.encode() for kind, number, text in sent
    )
    reader = Records()
    received = []
    start = 0
    for cut in [*sorted({min(cut, len(stream)) for cut in cuts}), len(stream)]:
        received += reader.feed(stream[start:cut])
        start = cut
    assert received == sent


def test_a_server_whose_port_is_taken_stops_and_says_why(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        server = Server(sqlite_url(tmp_path), tmp_path / "server.log")
        server.port = taken.getsockname()[1]
        with pytest.raises(RuntimeError, match="the server stopped"):
            server.start()
    assert "a relay stopped" in (tmp_path / "server.log").read_text()


def test_a_relay_whose_server_does_not_answer_says_so_in_the_callers_language(
    tmp_path: Path,
) -> None:
    relay = Relay(tmp_path / "bus.sock", tmp_path / "no-server.sock", unread_limit=1 << 20, rate=30)

    async def ask(language: str) -> httpx.Response:
        transport = httpx.ASGITransport(app=relay)
        async with httpx.AsyncClient(transport=transport, base_url="http://relay") as client:
            return await client.get("/api/rooms", headers={"accept-language": language})

    answer = asyncio.run(ask("fr-FR,fr;q=0.9"))
    assert answer.status_code == 502
    assert answer.json() == {
        "code": "unreachable",
        "message": "le serveur ne répond pas ; réessayez dans un instant",
    }
    assert asyncio.run(ask("de")).json()["message"].startswith("the server is not answering")
