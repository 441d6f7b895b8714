"""The open database of games, through the real server: games played to their end, then
exported by the command line and over HTTP, and read back with ``load_export``.

Every game here is a one-round Wizard for three. Ana lets the export show her name and her
unrated games; Bob lets it show nothing: he is a pseudonym, and his unrated games stay out;
Cid plays one rated game and deletes his account.
"""

from __future__ import annotations

import asyncio
import datetime
import gzip
import importlib.util
import io
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

import httpx
import pytest

from tapisvert.core.game import CHANCE
from tapisvert.records import ExportedGame, RecordError, load_export

from server_support import Player, Server, run_cli, serving, until

SHORT = {"rounds": "1", "first_dealer": "P1"}
TODAY = datetime.datetime.now(datetime.UTC).date().isoformat()
EXAMPLE = Path(__file__).parent.parent / "examples" / "wizard_bids.py"
EXPORTED = {"ana rated", "bob rated", "both rated", "ana unrated", "bob left", "cid deleted"}
"""The tables whose games an export gives: not Bob's unrated ones."""


@dataclass
class Played:
    """The server, its accounts and the tables finished on it, by what they are."""

    server: Server
    tokens: dict[str, str]
    names: dict[str, str]
    tables: dict[str, int]


def register(server: Server, name: str) -> str:
    response = server.http.post(
        f"{server.url}/api/register", json={"name": name, "password": "secret-enough"}
    )
    response.raise_for_status()
    return str(response.json()["token"])


def finished_table(server: Server, tokens: list[str], rated: bool = True) -> int:
    """A one-round Wizard of these people and easy bots, played to its end."""
    created = server.call(
        tokens[0], "POST", "/api/tables", game="wizard", players=3, options=SHORT, rated=rated
    )
    created.raise_for_status()
    table = int(created.json()["table"])
    for seat, token in enumerate(tokens[1:], start=1):
        server.call(token, "POST", f"/api/tables/{table}/join", seat=seat).raise_for_status()
    for _ in range(3 - len(tokens)):
        server.call(tokens[0], "POST", f"/api/tables/{table}/bots", level="easy").raise_for_status()
    server.call(tokens[0], "POST", f"/api/tables/{table}/start").raise_for_status()

    async def play() -> None:
        players = [Player(server, token, seed) for seed, token in enumerate(tokens, start=1)]
        await asyncio.gather(*(player.play({table}) for player in players))

    asyncio.run(asyncio.wait_for(play(), 60))
    return table


def left_table(server: Server, token: str) -> int:
    """A one-round Wizard the person leaves as it starts: a bot plays their seat to the end
    (each of those moves a stand-in's)."""
    created = server.call(token, "POST", "/api/tables", game="wizard", players=3, options=SHORT)
    created.raise_for_status()
    table = int(created.json()["table"])
    for _ in range(2):
        server.call(token, "POST", f"/api/tables/{table}/bots", level="easy").raise_for_status()
    server.call(token, "POST", f"/api/tables/{table}/start").raise_for_status()
    server.call(token, "POST", f"/api/tables/{table}/leave").raise_for_status()

    def finished() -> bool:
        return bool(
            server.http.get(f"{server.url}/api/tables/{table}").json()["status"] == "finished"
        )

    asyncio.run(until(finished, 60))
    return table


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Played]:
    with serving(tmp_path_factory.mktemp("exports"), rate=300.0) as server:
        names = {"ana": "export-ana", "bob": "export-bob"}
        tokens = {who: register(server, name) for who, name in names.items()}
        chosen = server.call(tokens["ana"], "PUT", "/api/account/export", name=True, unrated=True)
        chosen.raise_for_status()
        tables = {
            "ana rated": finished_table(server, [tokens["ana"]]),
            "bob rated": finished_table(server, [tokens["bob"]]),
            "both rated": finished_table(server, [tokens["ana"], tokens["bob"]]),
            "ana unrated": finished_table(server, [tokens["ana"]], rated=False),
            "bob unrated": finished_table(server, [tokens["bob"]], rated=False),
            "both unrated": finished_table(server, [tokens["ana"], tokens["bob"]], rated=False),
            "bob left": left_table(server, tokens["bob"]),
        }
        leaving = register(server, "export-cid")
        tables["cid deleted"] = finished_table(server, [leaving])
        gone = server.call(leaving, "POST", "/api/account/delete", password="secret-enough")
        assert gone.status_code == 204
        yield Played(server, tokens, names, tables)


def exported_by_cli(played: Played, folder: Path) -> list[ExportedGame]:
    path = folder / "wizard.jsonl.gz"
    done = run_cli(
        "export", "--game", "wizard", "--since", TODAY, "--output", str(path),
        "--database-url", played.server.database_url,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert f"6 games of wizard finished since {TODAY}" in done.stdout
    return list(load_export(path))


def exported_over_http(played: Played) -> list[ExportedGame]:
    response = httpx.get(f"{played.server.url}/api/export/wizard", params={"since": TODAY})
    response.raise_for_status()
    assert response.headers["content-type"] == "application/gzip"
    assert "tapisvert-wizard-since-" in response.headers["content-disposition"]
    return list(load_export(io.BytesIO(response.content)))


def by_table(played: Played, games: list[ExportedGame]) -> dict[str, ExportedGame]:
    """Each exported game under the name of its table: the one whose public record has
    the same actions (the export does not number its games)."""
    found = {}
    for what, table in played.tables.items():
        actions = played.server.record(table).actions
        matching = [game for game in games if game.record.actions == actions]
        assert len(matching) <= 1
        if matching:
            found[what] = matching[0]
    return found


def test_the_cli_exports_rated_games_and_the_unrated_ones_everyone_allowed(
    played: Played, tmp_path: Path
) -> None:
    games = by_table(played, exported_by_cli(played, tmp_path))
    assert set(games) == EXPORTED
    assert [games[what].rated for what in ("ana rated", "bob rated", "both rated")] == [True] * 3
    assert not games["ana unrated"].rated


def test_http_streams_the_same_games_and_each_replays_to_its_result(played: Played) -> None:
    games = by_table(played, exported_over_http(played))
    assert set(games) == EXPORTED
    for what, game in games.items():
        public = played.server.record(played.tables[what])
        last = None
        for step in game.steps():
            last = step.state
        assert last is not None and last.is_terminal()
        assert last.returns() == game.record.result == public.result
        assert game.record.date == TODAY


def test_each_move_has_its_time_and_chance_none(played: Played) -> None:
    for game in exported_over_http(played):
        assert len(game.times) == len(game.record.actions)
        for step, took in zip(game.steps(), game.times, strict=True):
            if step.actor == CHANCE:
                assert took is None
            else:
                assert took is not None and 0 <= took < 60


def test_names_only_for_the_account_that_allowed_them_and_stable_pseudonyms(
    played: Played, tmp_path: Path
) -> None:
    response = httpx.get(f"{played.server.url}/api/export/wizard", params={"since": TODAY})
    text = gzip.decompress(response.content).decode()
    assert played.names["bob"] not in text
    games = by_table(played, list(load_export(io.BytesIO(response.content))))
    ana = [seat for seat in games["ana rated"].lineup if seat.bot is None]
    assert [(seat.player, seat.named) for seat in ana] == [(played.names["ana"], True)]
    bob_seats = [games["bob rated"].lineup[0], games["both rated"].lineup[1]]
    assert bob_seats[0].player == bob_seats[1].player
    assert bob_seats[0].player.startswith("anon ") and not bob_seats[0].named
    assert games["both rated"].lineup[0].player == played.names["ana"]
    bots = [seat for seat in games["bob rated"].lineup if seat.bot is not None]
    assert [(seat.bot, seat.named) for seat in bots] == [("easy", True), ("easy", True)]
    assert games["bob rated"].record.seats == [seat.player for seat in games["bob rated"].lineup]
    other = by_table(played, exported_by_cli(played, tmp_path))["bob rated"].lineup[0].player
    assert other.startswith("anon ") and other != bob_seats[0].player  # a key per export


def test_a_seat_a_bot_played_for_its_absent_person_says_so(played: Played) -> None:
    games = by_table(played, exported_over_http(played))
    left = games["bob left"]
    bob = left.lineup[0]
    assert bob.absent and bob.bot is None and bob.place == 3
    assert bob.player == games["bob rated"].lineup[0].player
    bobs = [step.number for step in left.steps() if step.actor == 0]
    assert bobs and left.stand_ins == bobs
    assert all(game.stand_ins == [] for what, game in games.items() if what != "bob left")


def test_a_deleted_account_leaves_its_games_without_its_name(played: Played) -> None:
    response = httpx.get(f"{played.server.url}/api/export/wizard", params={"since": TODAY})
    assert b"export-cid" not in gzip.decompress(response.content)
    games = by_table(played, list(load_export(io.BytesIO(response.content))))
    cid = games["cid deleted"].lineup[0]
    assert (cid.player, cid.named, cid.bot) == ("(deleted)", False, None)


def test_ratings_before_the_game_come_with_rated_seats(played: Played) -> None:
    games = by_table(played, exported_over_http(played))
    ana, *bots = games["ana rated"].lineup
    assert ana.mu is not None and ana.sigma is not None
    assert ana.mu - 3 * ana.sigma == pytest.approx(0)  # her first rated game of Wizard
    assert sum(seat.mu is not None for seat in bots) == 1  # a level is rated by its best seat
    places = [seat.place for seat in games["ana rated"].lineup]
    assert all(place is not None and 1 <= place <= 3 for place in places) and 1 in places
    assert all(seat.mu is None for seat in games["ana unrated"].lineup)


def test_the_account_settings_start_off_and_change_for_their_owner_only(
    played: Played,
) -> None:
    server = played.server
    bob = server.call(played.tokens["bob"], "GET", "/api/account/export")
    assert bob.json() == {"name": False, "unrated": False}
    ana = server.call(played.tokens["ana"], "GET", "/api/account/export")
    assert ana.json() == {"name": True, "unrated": True}
    assert server.http.get(f"{server.url}/api/account/export").status_code == 401


def test_a_bad_day_or_an_unknown_game_is_refused_saying_why(played: Played) -> None:
    url = played.server.url
    bad = httpx.get(f"{url}/api/export/wizard", params={"since": "2026-13-01"})
    assert bad.status_code == 400 and "2026-13-01" in bad.json()["message"]
    assert "YYYY-MM-DD" in bad.json()["message"]
    french = httpx.get(
        f"{url}/api/export/wizard",
        params={"since": "yesterday"},
        headers={"Accept-Language": "fr"},
    )
    assert "AAAA-MM-JJ" in french.json()["message"]
    unknown = httpx.get(f"{url}/api/export/chess", params={"since": TODAY})
    assert unknown.status_code == 404 and "chess" in unknown.json()["message"]
    missing = httpx.get(f"{url}/api/export/wizard")
    assert missing.status_code == 400
    done = run_cli(
        "export", "--game", "wizard", "--since", "12/04/2026",
        "--database-url", played.server.database_url,
    )  # fmt: skip
    assert done.returncode == 2 and "12/04/2026" in done.stderr
    done = run_cli(
        "export", "--game", "chess", "--since", TODAY,
        "--database-url", played.server.database_url,
    )  # fmt: skip
    assert done.returncode == 2 and "chess" in done.stderr
    done = run_cli(
        "export", "--game", "wizard", "--since", TODAY,
        "--output", str(Path(played.server.log).parent / "no-such-folder" / "wizard.jsonl.gz"),
        "--database-url", played.server.database_url,
    )  # fmt: skip
    assert done.returncode == 2 and "no file was written" in done.stderr
    assert "Traceback" not in done.stderr


def test_a_day_after_the_games_exports_none(played: Played) -> None:
    tomorrow = (datetime.date.fromisoformat(TODAY) + datetime.timedelta(days=1)).isoformat()
    response = httpx.get(f"{played.server.url}/api/export/wizard", params={"since": tomorrow})
    response.raise_for_status()
    assert gzip.decompress(response.content) == b""


def test_a_line_that_is_not_a_game_is_named(tmp_path: Path) -> None:
    path = tmp_path / "broken.jsonl"
    path.write_text('{"game": "wizard", "players": 3, "actions": []}\n')
    with pytest.raises(RecordError) as refused:
        list(load_export(path))
    assert refused.value.line == 1 and "tapisvert-export/1" in str(refused.value)


def example() -> ModuleType:
    spec = importlib.util.spec_from_file_location("wizard_bids", EXAMPLE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def test_the_example_counts_every_bid_for_people_and_bots(
    played: Played, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    response = httpx.get(f"{played.server.url}/api/export/wizard", params={"since": TODAY})
    path = tmp_path / "wizard.jsonl.gz"
    path.write_bytes(response.content)
    counted = example().main([str(path)])
    assert counted.games == 6
    people = sum(n for (by, _), n in counted.placed_by_position.items() if by == "people")
    bots = sum(n for (by, _), n in counted.placed_by_position.items() if by == "bots")
    # six games of three seats, one bid each: ana's 3, bob's 2 and cid's are people's, the
    # rest bots' (bob's bid in the game he left among them)
    assert (people, bots) == (6, 12)
    assert sum(counted.placed_by_size.values()) == 18
    assert set(counted.placed_by_size) <= {("people", 1), ("bots", 1)}
    shown = capsys.readouterr().out
    assert "Bids made in 6 games of Wizard" in shown and "position" in shown
