"""Mended: names that pass for another person's, or that nobody can see, are refused."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from sqlalchemy import text

from tapisvert.server.errors import ServerError
from tapisvert.server.names import name_key, valid_name

from server_support import Server, engine_for, migrate, serving, sqlite_url

TAKEN = ["KEA1477", "TOM1477", "BOB1477", "eko1893", "mike1893"]
"""Names whose look-alikes in other scripts, capitals or small capitals once got in."""


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    # a high rate: look-alikes that pass as names spend the address's quota of accounts
    with serving(tmp_path_factory.mktemp("names"), rate=3000.0) as running:
        for route, body in [
            ("/api/guest", {"name": "alice"}),
            ("/api/register", {"name": "bob", "password": "s3cret!"}),
            *[("/api/guest", {"name": name}) for name in TAKEN],
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


@pytest.mark.parametrize(
    ("name", "code"),
    [
        ("КЕА1477", "name_taken"),  # Cyrillic capitals, beside KEA1477
        ("ΚΕΑ1477", "name_taken"),  # Greek capitals
        ("кЕА1477", "name_taken"),  # a small Cyrillic к among capitals
        ("ТОМ1477", "name_taken"),  # Cyrillic, beside TOM1477
        ("ВОВ1477", "name_taken"),  # Cyrillic, beside BOB1477
        ("mıke1893", "name_taken"),  # a dotless ı, beside mike1893
        ("MIKE1893", "name_taken"),
        ("rnike1893", "name_taken"),  # r and n for m
        ("ᴇᴋᴏ1893", "bad_name"),  # small capitals, beside eko1893
        ("eᴋo1893", "bad_name"),
    ],
)
def test_look_alikes_in_other_scripts_and_capitals_are_refused(
    server: Server, name: str, code: str
) -> None:
    for response in (as_guest(server, name), as_account(server, name)):
        assert response.status_code == (409 if code == "name_taken" else 400), response.text
        assert response.json()["code"] == code


@pytest.mark.parametrize("name", [".", "..", "...", "_", "-", "__", "._-", "-.-"])
def test_names_without_a_letter_or_a_digit_are_refused(server: Server, name: str) -> None:
    """``/api/players/..`` could not show such a person."""
    for response in (as_guest(server, name), as_account(server, name)):
        assert response.status_code == 400 and response.json()["code"] == "bad_name"


def test_names_with_dots_dashes_and_underscores_are_welcome(server: Server) -> None:
    for name in ("j.doe", "jean-luc", "_x_", "1.0"):
        assert as_guest(server, name).status_code == 200, name


def test_a_name_is_kept_in_its_plain_form(server: Server) -> None:
    response = as_guest(server, "ｄａｖｅ")
    assert response.status_code == 200 and response.json()["user"] == "dave"


def test_a_name_is_limited_in_length_once_normalised(server: Server) -> None:
    """``ﷺ`` is one character that NFKC writes as 18."""
    response = as_guest(server, "ﷺﷺ")
    assert response.status_code == 400 and response.json()["code"] == "bad_name"


def test_names_in_other_scripts_are_welcome(server: Server) -> None:
    for name in ("алиса", "ζωή", "ナナ", "émile", "Jürgen", "Алёша", "Ελένη", "名前", "김민수"):
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


def test_an_old_database_gets_the_keys_of_skeletons(tmp_path: Path) -> None:
    """Keys made before skeletons still let look-alikes in: they are made again."""
    with serving(tmp_path) as running:
        for name in ("KEA1477", "mike1893"):
            as_guest(running, name).raise_for_status()
    url = sqlite_url(tmp_path)
    migrate(url, "0007", down=True)  # back to before the keys of skeletons
    engine = engine_for(url)
    with engine.begin() as connection:
        for name, key in [("KEA1477", "keal477"), ("mike1893", "mlkel893")]:  # as then
            connection.execute(
                text("UPDATE users SET name_key = :key WHERE name = :name"),
                {"key": key, "name": name},
            )
    engine.dispose()
    with serving(tmp_path) as running:
        for name in ("КЕА1477", "ΚΕΑ1477", "mıke1893"):
            assert as_guest(running, name).status_code == 409, name
    engine = engine_for(url)
    with engine.connect() as connection:
        rows = connection.execute(text("SELECT name, name_key, bot FROM users")).all()
    engine.dispose()
    assert {"KEA1477", "mike1893"} <= {name for name, _, bot in rows if not bot}
    for name, key, bot in rows:
        assert key == (name if bot else name_key(name)), name


@pytest.mark.parametrize(
    "names",
    [
        ["alice", "ALICE", "Alice", "aIice", "al1ce", "аlice", "аlісе", "ａｌｉｃｅ", "𝐚𝐥𝐢𝐜𝐞"],
        ["KEA1477", "kea1477", "КЕА1477", "ΚΕΑ1477", "kEA1477"],
        ["TOM1477", "tom1477", "ТОМ1477", "T0M1477"],
        ["BOB1477", "bob1477", "ВОВ1477", "Bob1477"],
        ["mike1893", "MIKE1893", "mıke1893", "rnike1893"],
        ["Ελένη", "ελένη", "ΕΛΈΝΗ"],
        ["Алёша", "АЛЁША", "алёша"],
        ["bob", "BOB", "Ьob"],
    ],
)
def test_names_that_look_alike_share_a_key(names: list[str]) -> None:
    assert len({name_key(name) for name in names}) == 1, [name_key(name) for name in names]


@pytest.mark.parametrize(
    ("one", "other"),
    [("alice", "alica"), ("Jürgen", "Jurgen"), ("bob", "rob"), ("kea1477", "kea1478")],
)
def test_names_that_look_different_keep_their_own_keys(one: str, other: str) -> None:
    assert name_key(one) != name_key(other)


def test_a_key_fits_its_column_whatever_the_name() -> None:
    """A Hangul syllable's skeleton is six characters; the column holds 64."""
    for name in ("꽦" * 32, "ệ" * 32, "m" * 32):
        assert len(name_key(valid_name(name))) <= 64


@pytest.mark.parametrize(
    "name",
    ["ᴇᴋᴏ", "ㅤalice", "аlice", "Ьob", "bob_жук", "alpha_ω", "abc_كريم", "١٢3", "..", "ꓐob"],
)
def test_names_outside_the_security_profile_or_mixing_scripts_are_refused(name: str) -> None:
    with pytest.raises(ServerError) as refusal:
        valid_name(name)
    assert refusal.value.code == "bad_name"
