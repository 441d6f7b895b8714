"""Mended: what every answer tells a browser, what a public server shows, odd ids, and
chat lines said twice."""

from __future__ import annotations

import contextlib
import json
import socket
import time
from collections.abc import Iterator

import httpx
import pytest
from websockets.sync.client import connect

from server_support import Server, entered, serving


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    with serving(tmp_path_factory.mktemp("http")) as running:
        yield running


@pytest.mark.parametrize("path", ["/", "/app.js", "/api/games", "/api/tables/999"])
def test_every_answer_carries_the_security_headers(server: Server, path: str) -> None:
    headers = httpx.get(f"{server.url}{path}").headers
    policy = headers["content-security-policy"]
    assert "frame-ancestors 'none'" in policy and "default-src 'self'" in policy
    assert "'unsafe-eval'" not in policy and "script-src 'self' 'sha256-" in policy
    assert headers["x-content-type-options"] == "nosniff"
    assert headers["referrer-policy"] == "no-referrer"


@pytest.mark.parametrize("path", ["/docs", "/openapi.json", "/redoc"])
def test_the_api_documentation_is_off_by_default(server: Server, path: str) -> None:
    assert httpx.get(f"{server.url}{path}").status_code == 404


@pytest.mark.parametrize("path", ["record", "replay"])
@pytest.mark.parametrize("table", [2**63, 2**64 + 5, 2**31])
def test_ids_beyond_the_database_integers_are_not_found(
    server: Server, path: str, table: int
) -> None:
    answer = httpx.get(f"{server.url}/api/tables/{table}/{path}")
    assert answer.status_code == 404 and answer.json()["code"] == "no_such_table"


def test_the_chat_keeps_repeated_lines(server: Server) -> None:
    """'gg' sent three times arrived once."""
    speaker, listener = server.guest("speaker"), server.guest("hearer")
    with contextlib.ExitStack() as stack:
        links = []
        for token in (speaker, listener):
            link = stack.enter_context(connect(server.ws_url))
            link.send(json.dumps({"type": "hello", "version": 1, "token": token}))
            link.recv(timeout=5)
            entered(link)
            links.append(link)
        for _ in range(3):
            links[0].send(json.dumps({"type": "chat", "room": "main", "text": "gg"}))
        heard = 0
        deadline = time.monotonic() + 3
        with contextlib.suppress(TimeoutError):
            while heard < 3:
                frame = json.loads(links[1].recv(timeout=max(0.0, deadline - time.monotonic())))
                heard += frame.get("type") == "chat" and frame.get("text") == "gg"
    assert heard == 3


@pytest.mark.parametrize("text", ["/join ²", "/join ①", "/join 1 ²"])
def test_a_command_with_a_unicode_digit_is_refused_cleanly(server: Server, text: str) -> None:
    """Mended: ``/join ²`` raised a bare ValueError: a 500 over HTTP."""
    token = server.guest(f"digits{len(text)}{ord(text[-1])}")
    answer = server.call(token, "POST", "/api/chat", room="main", text=text)
    assert answer.status_code == 400 and answer.json()["code"] == "not_a_number"


def test_option_values_set_from_the_chat_are_limited_as_in_messages(server: Server) -> None:
    """Mended: ``/option`` in chat skipped the value limit of the option message."""
    token = server.guest("options")
    table = server.call(token, "POST", "/api/tables", game="wizard", players=3).json()["table"]
    long_value = ",".join(["1"] * 40)
    answer = server.call(
        token, "POST", "/api/chat", table=table, text=f"/option rounds {long_value}"
    )
    assert answer.status_code == 400 and answer.json()["code"] == "malformed"
    options = server.call(token, "GET", f"/api/tables/{table}").json()["options"]
    assert options["rounds"] != long_value


@pytest.mark.slow
def test_slow_and_half_sent_requests_are_cut_off(tmp_path_factory: pytest.TempPathFactory) -> None:
    """Mended: half-sent HTTP requests were held open indefinitely (300 for 30 s). Now a
    request's head must come within 10 s, and then its body within 10 s."""
    with serving(tmp_path_factory.mktemp("slow")) as server:
        silent, half_head, half_body = (
            socket.create_connection(("127.0.0.1", server.port)) for _ in range(3)
        )
        half_head.sendall(b"GET /api/games HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
        half_body.sendall(
            b"POST /api/guest HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            b'Content-Length: 100\r\n\r\n{"name": '
        )
        started = time.monotonic()
        answers = []
        for connection in (silent, half_head, half_body):
            connection.settimeout(20)
            with connection:
                answer = b""
                with contextlib.suppress(ConnectionResetError):
                    while chunk := connection.recv(4096):
                        answer += chunk
                answers.append(answer)
        assert 9 < time.monotonic() - started < 15
        assert answers[:2] == [b"", b""]
        assert answers[2].startswith(b"HTTP/1.1 408") and b'"code":"too_slow"' in answers[2]
        assert httpx.get(f"{server.url}/api/games").status_code == 200


def test_seats_in_messages_are_counted_from_one(server: Server) -> None:
    """Mended: refusing a second seat at one's own table said "seat 0"."""
    token = server.guest("counts")
    table = server.call(token, "POST", "/api/tables", game="luz", players=3).json()["table"]
    refused = server.call(token, "POST", f"/api/tables/{table}/join", seat=2)
    assert refused.status_code == 409
    assert refused.json()["message"] == "you already sit at this table, in seat 1"
    missing = server.call(server.guest("counts2"), "POST", f"/api/tables/{table}/join", seat=9)
    assert "there is no seat 10: this table has seats 1 to 3" in missing.json()["message"]
