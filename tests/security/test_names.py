"""Finding 9: names that pass for another person's, or that nobody can see, are refused."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from server_support import Server, migrate, serving, sqlite_url


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    with serving(tmp_path_factory.mktemp("names")) as running:
        for route, body in [
            ("/api/guest", {"name": "alice"}),
            ("/api/register", {"name": "bob", "password": "s3cret!"}),
        ]:
            httpx.post(f"{running.url}{route}", json=body).raise_for_status()
        yield running


def as_guest(server: Server, name: str) -> httpx.Response:
    return httpx.post(f"{server.url}/api/guest", json={"name": name})


def as_account(server: Server, name: str) -> httpx.Response:
    return httpx.post(f"{server.url}/api/register", json={"name": name, "password": "s3cret!"})


@pytest.mark.parametrize("name", ["carol\n", "carol\r", "carol\t", "ca\x00rol", "ca\u200brol"])
def test_control_and_invisible_characters_are_refused(server: Server, name: str) -> None:
    for response in (as_guest(server, name), as_account(server, name)):
        assert response.status_code == 400 and response.json()["code"] == "bad_name"


@pytest.mark.parametrize("name", ["\u3164", "\u115f\u1160", "\uffa0\uffa0", "ㅤalice"])
def test_names_made_to_look_blank_are_refused(server: Server, name: str) -> None:
    response = as_guest(server, name)
    assert response.status_code == 400 and response.json()["code"] == "bad_name"


@pytest.mark.parametrize(
    "name",
    [
        "alice\n",  # the name pattern's $ matched before a trailing newline
        "Alice",
        "ALICE",
        "aIice",  # a capital i
        "al1ce",
        "ａｌｉｃｅ",  # fullwidth
        "𝐚𝐥𝐢𝐜𝐞",  # mathematical bold
        "аlice",  # a Cyrillic а
        "аlісе",  # Cyrillic а, і, с, е
        "BOB",
        "Ьob",
    ],
)
def test_look_alikes_of_a_taken_name_are_refused(server: Server, name: str) -> None:
    for response in (as_guest(server, name), as_account(server, name)):
        assert response.status_code in (400, 409), response.text
        assert response.json()["code"] in ("bad_name", "name_taken", "malformed")


def test_a_name_is_kept_in_its_plain_form(server: Server) -> None:
    response = as_guest(server, "ｄａｖｅ")
    assert response.status_code == 200 and response.json()["user"] == "dave"


def test_a_name_is_limited_in_length_once_normalised(server: Server) -> None:
    """``ﷺ`` is one character that NFKC writes as 18."""
    response = as_guest(server, "ﷺﷺ")
    assert response.status_code == 400 and response.json()["code"] == "bad_name"


def test_names_in_other_scripts_are_welcome(server: Server) -> None:
    for name in ("алиса", "ζωή", "ナナ", "émile"):
        assert as_guest(server, name).status_code == 200, name


def test_a_login_finds_a_name_written_in_another_form(server: Server) -> None:
    response = httpx.post(f"{server.url}/api/login", json={"name": "ｂｏｂ", "password": "s3cret!"})
    assert response.status_code == 200 and response.json()["user"] == "bob"


def test_an_old_database_gets_name_keys(tmp_path: Path) -> None:
    """Names stored before keys existed still block their look-alikes."""
    with serving(tmp_path) as running:
        as_guest(running, "zoe").raise_for_status()
    migrate(sqlite_url(tmp_path), "0001", down=True)  # back to before name keys
    with serving(tmp_path) as running:
        assert as_guest(running, "ZOE").status_code == 409
