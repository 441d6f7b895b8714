"""The lobby over real WebSockets: accounts, rooms, chat and its commands, clocks, absence."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tapisvert.core.registry import game_names
from tapisvert.games.luz.cards import FAIL_POINTS_PER_TRICK, SUCCESS_POINTS
from tapisvert.i18n import catalogue
from tapisvert.server import protocol

from server_support import Frame, Player, Server, link, merged_view, of_type, serving, until


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    # the scenarios chat and create tables faster than people do: quotas grow with the rate
    settings = {"absence-grace": 0.5, "bot-delay": 0.05, "rate": 300.0}
    with serving(tmp_path_factory.mktemp("lobby"), **settings) as running:
        yield running


def test_accounts_register_login_and_refuse_wrong_passwords(server: Server) -> None:
    base = server.url
    made = httpx.post(f"{base}/api/register", json={"name": "dora", "password": "s3cret!"})
    assert made.status_code == 200 and made.json()["guest"] is False
    again = httpx.post(f"{base}/api/register", json={"name": "dora", "password": "other1"})
    assert again.status_code == 409 and "taken" in again.json()["message"]
    short = httpx.post(f"{base}/api/register", json={"name": "eli", "password": "123"})
    assert short.status_code == 400 and "6" in short.json()["message"]
    wrong = httpx.post(f"{base}/api/login", json={"name": "dora", "password": "s3cret"})
    assert wrong.status_code == 401 and wrong.json()["message"] == "wrong name or password"
    right = httpx.post(f"{base}/api/login", json={"name": "dora", "password": "s3cret!"})
    assert right.status_code == 200
    guest_as_account = httpx.post(f"{base}/api/guest", json={"name": "dora"})
    assert guest_as_account.status_code == 409
    bad_name = httpx.post(f"{base}/api/guest", json={"name": "<b>x</b>"})
    assert bad_name.status_code == 400 and "cannot be a name" in bad_name.json()["message"]
    token = right.json()["token"]
    tampered = token[:-2] + ("AA" if not token.endswith("AA") else "BB")
    mine = server.call(token, "POST", "/api/tables", game="luz", players=3)
    assert mine.status_code == 200 and mine.json()["seats"][0]["name"] == "dora"
    forged = server.call(tampered, "POST", "/api/tables", game="luz", players=3)
    assert forged.status_code == 401


def test_a_table_set_up_and_played_through_chat_commands(server: Server) -> None:
    ana, bob = server.guest("cmd-ana"), server.guest("cmd-bob")

    async def scenario() -> None:
        async with link(server, ana) as first, link(server, bob, "fr") as second:
            room = await first.answer(type="enter", room="wizard")
            assert room["type"] == "room" and "cmd-ana" in room["people"]
            await second.answer(type="enter", room="wizard")
            created = await first.answer(
                type="create", room="wizard", game="wizard", players=3, options={}
            )
            table = created["table"]
            listed = await second.expect(of_type("table", table=table))
            assert listed["seats"][0]["name"] == "cmd-ana" and listed["status"] == "open"

            joined = await second.answer(type="chat", room="wizard", text=f"/join {table}")
            assert joined["type"] == "ack" and joined["table"] == table  # the table to open
            option = await first.answer(type="chat", table=table, text="/option rounds first5")
            assert option["type"] == "ack"
            bot = await first.answer(type="chat", table=table, text="/bot add random")
            assert bot["type"] == "ack"
            await first.send(type="chat", table=table, text="/who")
            people = await first.expect(of_type("people", table=table))
            assert people["people"] == ["P1 cmd-ana", "P2 cmd-bob", "P3 bot random"]
            said = f"At table {table}: seat 1: cmd-ana; seat 2: cmd-bob; seat 3: bot random."
            assert people["text"] == said
            await second.send(type="chat", table=table, text="/who")  # in the reader's language
            gens = await second.expect(of_type("people", table=table))
            assert gens["text"].startswith(f"À la table {table} : place 1 : cmd-ana; place 2 :")
            await first.send(type="chat", table=table, text="/help")
            help_text = (await first.expect(of_type("notice", key="server.help")))["text"]
            assert all(f"/{name}" in help_text for name in ("join", "start", "option", "bot"))
            refused = await second.answer(type="chat", table=table, text="/frobnicate")
            assert (
                refused["code"] == "bad_command" and "n'est pas une commande" in refused["message"]
            )
            hostile = "<script>alert(1)</script><img src=x onerror=alert(2)>"
            await first.answer(type="chat", table=table, text=hostile)
            line = await second.expect(of_type("chat", table=table))
            assert line["text"] == hostile and line["sender"] == "cmd-ana"

            assert (await first.answer(type="chat", table=table, text="/start"))["type"] == "ack"
            started = await second.expect(of_type("notice", key="server.notice.started"))
            assert started["text"] == "la partie commence"
            view = await second.expect(of_type("view", table=table))
            assert view["seat"] == 1 and view["view"]["rounds"] == 5
            too_late = await first.answer(type="chat", table=table, text="/option rounds all")
            assert too_late["code"] == "already_started"

            await second.send(type="chat", table=table, text="/leave")
            away = await first.expect(of_type("notice", key="server.notice.left_game"))
            assert (
                away["text"] == "cmd-bob leaves the game: a bot plays for them until they come back"
            )
            await second.send(type="chat", table=table, text="/join 2")
            back = await first.expect(of_type("notice", key="server.notice.back"))
            assert "cmd-bob" in back["text"]

    asyncio.run(scenario())


def test_a_bot_plays_for_a_person_out_of_time_or_away(server: Server) -> None:
    ana, bob = server.guest("clock-ana"), server.guest("clock-bob")
    created = server.call(ana, "POST", "/api/tables", game="wizard", players=3, clock=3.0)
    table = created.json()["table"]
    for _ in range(2):
        server.call(ana, "POST", f"/api/tables/{table}/bots", level="random").raise_for_status()

    async def scenario() -> None:
        async with link(server, bob) as watcher:
            await watcher.answer(type="watch", table=table)
            async with link(server, ana) as sleeper:
                server.call(ana, "POST", f"/api/tables/{table}/start").raise_for_status()
                timeout = await watcher.expect(of_type("notice", key="server.notice.timeout"))
                assert "clock-ana" in timeout["text"]
                info = await watcher.expect(
                    lambda frame: frame["type"] == "table" and frame["seats"][0]["replaced"]
                )
                assert info["table"] == table
                seq = (await watcher.expect(of_type("view", table=table)))["seq"]
                moved = await watcher.expect(lambda frame: frame.get("seq", 0) > seq + 3)
                assert moved["type"] == "view"
                await sleeper.answer(type="chat", table=table, text="/join 1")
                await watcher.expect(of_type("notice", key="server.notice.back"))
            away = await watcher.expect(of_type("notice", key="server.notice.replaced"))
            assert "clock-ana" in away["text"]
            async with link(server, ana):
                await watcher.expect(of_type("notice", key="server.notice.back"))

    asyncio.run(scenario())


def test_protocol_schemas_and_games_are_published(server: Server) -> None:
    schemas = httpx.get(f"{server.url}/api/protocol").json()
    assert schemas["version"] == protocol.PROTOCOL_VERSION
    assert set(schemas["client"]) == {model.__name__ for model in protocol.INCOMING}
    assert set(schemas["server"]) == {model.__name__ for model in protocol.OUTGOING}
    assert schemas["client"]["Act"]["properties"]["action"]["maxLength"] == 64
    games = {game["name"]: game for game in httpx.get(f"{server.url}/api/games").json()}
    assert sorted(games) == game_names()
    assert "hard" in games["luz"]["bots"]
    rooms = httpx.get(f"{server.url}/api/rooms").json()
    assert [room["room"] for room in rooms] == ["main", *game_names()]


def test_games_describe_the_controls_of_their_options_and_their_card_faces(
    server: Server,
) -> None:
    games = {game["name"]: game for game in httpx.get(f"{server.url}/api/games").json()}
    english, french = catalogue("en"), catalogue("fr")
    for game in games.values():
        assert game["min_players"] <= game["max_players"]
        for option in game["options"]:
            keys = {"name", "kind", "label", "default", "choices", "min", "max", "shrinks"}
            assert set(option) == keys
            assert option["kind"] in {"bool", "seat", "int", "choice", "text"}
            assert option["label"] in english and option["label"] in french
            if option["kind"] == "choice":
                assert option["default"] in option["choices"]
    options = {
        (game, option["name"]): option for game in games for option in games[game]["options"]
    }
    assert options["fzzzt", "unused_starting_robots"]["choices"] == ["shuffle_in", "box"]
    rounds = options["wizard", "rounds"]
    assert rounds["kind"] == "text" and rounds["default"] == "all"
    assert rounds["choices"] == ["all", "first5", "first7", "special6"]
    assert options["wizard", "canadian"] | {"label": ""} == {
        "name": "canadian", "kind": "bool", "label": "", "default": False,
        "choices": [], "min": None, "max": None, "shrinks": False,
    }  # fmt: skip
    assert options["wizard", "suit_values"]["shrinks"]  # folded apart in the forms
    assert games["wizard"]["min_players"] == 3  # two need the small deck's options
    assert options["wizard", "first_dealer"]["kind"] == "seat"
    assert options["luz", "bet_bead_supply"]["kind"] == "int"
    assert options["luz", "bet_bead_supply"]["min"] == 0
    assert options["abluxxen", "series_target"]["min"] == 1
    faces = games["fzzzt"]["card_faces"]
    assert len(faces) == 56
    assert faces["R07"] == {"kind": "robot", "zap": 1, "points": 1, "symbols": "NBG", "belt": 4}
    assert faces["P01"] == {
        "kind": "unit", "zap": 0, "points": 0, "symbols": "NBGO", "belt": 3, "value": 13,
    }  # fmt: skip
    assert faces["F1"]["kind"] == "fzzzt" and faces["F1"]["points"] == -1
    assert {face["kind"] for face in faces.values()} == {
        "mechanic", "starter", "robot", "upgrade", "fzzzt", "unit",
    }  # fmt: skip
    assert games["wizard"]["card_faces"] == {} and games["luz"]["card_faces"] == {}
    luz_scoring = games["luz"]["scoring"]
    assert luz_scoring["success"]["plain"] == list(SUCCESS_POINTS[0])
    assert luz_scoring["success"]["bead"] == list(SUCCESS_POINTS[1])
    assert luz_scoring["miss_per_trick"] == FAIL_POINTS_PER_TRICK
    assert games["wizard"]["scoring"] == {}


def test_bots_of_one_level_have_distinct_names_that_survive_a_restart(tmp_path: Path) -> None:
    with serving(tmp_path) as server:
        ana = server.guest("names-ana")
        table = server.call(ana, "POST", "/api/tables", game="wizard", players=5).json()["table"]
        for level in ("hard", "easy", "hard"):
            server.call(ana, "POST", f"/api/tables/{table}/bots", level=level).raise_for_status()

        def names() -> list[str | None]:
            info = httpx.get(f"{server.url}/api/tables/{table}").json()
            return [seat["name"] for seat in info["seats"]]

        assert names() == ["names-ana", "bot hard", "bot easy", "bot hard 2", None]
        server.stop()
        server.start()
        assert names() == ["names-ana", "bot hard", "bot easy", "bot hard 2", None]
        server.call(ana, "POST", f"/api/tables/{table}/bots", level="HARD").raise_for_status()
        assert names()[-1] == "bot hard 3"


def test_a_room_and_a_table_tell_their_recent_chat_to_whoever_comes_or_comes_back(
    server: Server,
) -> None:
    ana, bob = server.guest("memo-ana"), server.guest("memo-bob")
    table = server.call(ana, "POST", "/api/tables", game="luz", players=3).json()["table"]
    for number in range(53):
        server.call(ana, "POST", "/api/chat", room="fzzzt", text=f"room {number}")
    for number in range(3):
        server.call(ana, "POST", "/api/chat", table=table, text=f"table {number}")
    for _ in range(2):
        server.call(ana, "POST", f"/api/tables/{table}/bots", level="random").raise_for_status()
    server.call(ana, "POST", f"/api/tables/{table}/start").raise_for_status()

    def recalled(frames: list[Frame]) -> list[Frame]:
        return [frame for frame in frames if frame.get("history")]

    async def scenario() -> None:
        async with link(server, bob, "fr") as reader:
            room = await reader.answer(type="enter", room="fzzzt")
            assert room["type"] == "room" and len(reader.seen) == 2  # welcome, then the answer
            lines = [await reader.expect(lambda frame: True) for _ in range(50)]
            assert [line["text"] for line in lines] == [f"room {n}" for n in range(3, 53)]
            assert all(line["type"] == "chat" and line["history"] for line in lines)

            await reader.answer(type="watch", table=table)
            told = recalled(reader.seen)[50:]
            chat = [frame["text"] for frame in told if frame["type"] == "chat"]
            assert chat == ["table 0", "table 1", "table 2"]
            assert told[-1]["key"] == "server.notice.started"
            assert told[-1]["text"] == "la partie commence"  # in the reader's language
            await server_chat(ana, table, "now")
            live = await reader.expect(of_type("chat", table=table))
            assert live["text"] == "now" and live["history"] is False

            async with link(server, ana) as back:  # a reload: hello again
                await back.expect(of_type("view", table=table))
                told = recalled(back.seen)
                assert [frame["text"] for frame in told if frame["type"] == "chat"] == [
                    "table 0", "table 1", "table 2", "now",
                ]  # fmt: skip
                assert [frame["text"] for frame in told if frame["type"] == "notice"][-1] == (
                    "the game starts"
                )

    async def server_chat(token: str, table: int, text: str) -> None:
        await asyncio.to_thread(server.call, token, "POST", "/api/chat", table=table, text=text)

    asyncio.run(scenario())


def test_each_command_gets_an_answer_that_fits_where_it_was_typed(server: Server) -> None:
    ana = server.guest("words-ana")
    table = server.call(ana, "POST", "/api/tables", game="wizard", players=3).json()["table"]

    async def scenario() -> None:
        async with link(server, ana) as typist:

            async def typed(text: str, **place: Any) -> Frame:
                return await typist.answer(type="chat", text=text, **place)

            for place in ({"room": "main"}, {"table": table}):
                unknown = await typed("/frobnicate now", **place)
                assert unknown["code"] == "bad_command"
                assert "'/frobnicate'" in unknown["message"] and "/help" in unknown["message"]
                assert "now" not in unknown["message"]
                helped = await typed("/HELP", **place)
                assert helped["key"] == "server.help" and "/join" in helped["text"]
                assert helped.get("table") == place.get("table")
                who = await typed("/who", **place)
                assert who["type"] == "people"
                in_words = f"At table {table}: seat 1: words-ana." if "table" in place else None
                assert who["text"] == (in_words or "Nobody is in this room.")  # not entered
            for command in ("/start", "/leave", "/option rounds 3", "/bot add easy"):
                elsewhere = await typed(command, room="main")
                assert elsewhere["code"] == "not_at_table", command
            for command, usage in [
                ("/option rounds", "/option NAME VALUE"),
                ("/bot easy", "/bot add LEVEL"),
                ("/start now", "/start"),
                ("/join 1 2", "/join [N]"),
            ]:
                refused = await typed(command, table=table)
                assert refused["code"] == "command_usage" and usage in refused["message"], command
            assert (await typed("/join", room="main"))["code"] == "command_usage"
            assert (await typed("/join x", room="main"))["code"] == "not_a_number"
            assert (await typed("/join 99999", room="main"))["code"] == "no_such_table"
            joined = await typed(f"/join {table}", room="main")
            assert joined == {"type": "ack", "id": joined["id"], "table": table, "seq": None}
            assert (await typed("/bot add easy", table=table))["table"] == table
            assert (await typed("/option rounds first5", table=table))["type"] == "ack"

    asyncio.run(scenario())


def test_the_table_is_told_who_sits_leaves_and_which_bot_comes(server: Server) -> None:
    ana, bob, eve = (server.guest(f"news-{name}") for name in ("ana", "bob", "eve"))
    table = server.call(ana, "POST", "/api/tables", game="luz", players=3).json()["table"]

    def told(frame: Frame) -> bool:
        return frame["type"] == "notice" and not frame["history"]

    async def scenario() -> None:
        async with link(server, eve, "fr") as watcher:
            await watcher.answer(type="watch", table=table)
            sat = [frame for frame in watcher.seen if frame["type"] == "notice"]
            assert [frame["text"] for frame in sat] == ["news-ana s'assied à la place 1"]
            server.call(bob, "POST", f"/api/tables/{table}/join", seat=2).raise_for_status()
            assert (await watcher.expect(told))["text"] == "news-bob s'assied à la place 3"
            server.call(bob, "POST", f"/api/tables/{table}/leave").raise_for_status()
            assert (await watcher.expect(told))["text"] == "news-bob quitte la table"
            server.call(ana, "POST", f"/api/tables/{table}/bots", level="medium")
            bot = await watcher.expect(told)
            assert bot["key"] == "server.notice.bot_added"
            assert bot["text"] == "news-ana installe bot medium à la place 2"

    asyncio.run(scenario())


@pytest.mark.slow
def test_an_open_table_nobody_is_at_is_closed_for_good(tmp_path: Path) -> None:
    with serving(tmp_path, **{"abandoned-after": 1.0}) as server:
        ana, bob = server.guest("gone-ana"), server.guest("gone-bob")

        def create() -> int:
            created = server.call(ana, "POST", "/api/tables", room="luz", game="luz", players=3)
            return int(created.json()["table"])

        def exists(table: int) -> bool:
            return httpx.get(f"{server.url}/api/tables/{table}").status_code == 200

        async def scenario() -> tuple[int, int]:
            async with link(server, bob) as lobby:
                await lobby.answer(type="enter", room="luz")
                left = create()  # its creator leaves it: nobody is seated
                server.call(ana, "POST", f"/api/tables/{left}/bots", level="easy")
                server.call(ana, "POST", f"/api/tables/{left}/leave").raise_for_status()
                watched = create()  # created over HTTP: its creator is not connected
                await lobby.answer(type="watch", table=watched)
                async with link(server, ana):
                    kept = create()  # its creator is connected
                    closed = await lobby.expect(of_type("table", table=left), seconds=5)
                    while closed["status"] != "closed":
                        closed = await lobby.expect(of_type("table", table=left), seconds=5)
                    assert closed["room"] == "luz"
                    await asyncio.sleep(1.5)  # the others outlive the time given: what is tested
                    assert exists(watched) and exists(kept)
                    assert not exists(left)
                    gone = await asyncio.to_thread(server.call, bob, "GET", f"/api/tables/{left}")
                    assert gone.json()["code"] == "no_such_table"
                    room = await lobby.answer(type="enter", room="luz")
                    assert left not in {info["table"] for info in room["tables"]}
                await lobby.expect(
                    lambda frame: frame.get("table") == kept and frame.get("status") == "closed"
                )
                await lobby.answer(type="leave", table=watched)
                await lobby.expect(
                    lambda frame: frame.get("table") == watched and frame.get("status") == "closed"
                )
            return left, kept

        left, kept = asyncio.run(scenario())
        refused = server.call(ana, "POST", f"/api/tables/{left}/join")
        assert refused.status_code == 404
        assert httpx.get(f"{server.url}/api/tables/{left}/record").status_code == 404
        server.settings["abandoned-after"] = 300.0
        server.stop()
        server.start()
        assert not exists(left) and not exists(kept)  # closed for good
        forgotten = create()
        server.stop()
        server.settings["abandoned-after"] = 0.5  # tables restored with nobody at them
        server.start()
        asyncio.run(until(lambda: not exists(forgotten), seconds=30))


def test_a_rematch_seats_the_same_players_one_seat_along(server: Server) -> None:
    ana, bob, eve = (server.guest(f"again-{name}") for name in ("ana", "bob", "eve"))
    created = server.call(
        ana, "POST", "/api/tables", game="wizard", players=4, options={"rounds": "1"}, clock=60
    )
    table = created.json()["table"]
    server.call(bob, "POST", f"/api/tables/{table}/join").raise_for_status()
    for _ in range(2):
        server.call(ana, "POST", f"/api/tables/{table}/bots", level="easy").raise_for_status()
    too_soon = server.call(ana, "POST", f"/api/tables/{table}/rematch")
    assert too_soon.status_code == 409 and too_soon.json()["code"] == "not_over"
    server.call(ana, "POST", f"/api/tables/{table}/start").raise_for_status()
    players = [Player(server, token, seed) for seed, token in enumerate((ana, bob))]

    async def finish() -> None:
        await asyncio.gather(*(player.play({table}) for player in players))

    asyncio.run(asyncio.wait_for(finish(), 60))
    stranger = server.call(eve, "POST", f"/api/tables/{table}/rematch")
    assert stranger.status_code == 403 and stranger.json()["code"] == "not_seated"

    async def scenario() -> int:
        async with link(server, ana) as first, link(server, bob, "fr") as second:
            asked = await first.answer(type="rematch", table=table)
            assert asked["type"] == "ack" and asked["table"] not in {None, table}
            rematch = asked["table"]
            told = await second.expect(of_type("notice", key="server.notice.rematch"))
            assert told["rematch"] == rematch and told["table"] == table
            assert told["text"] == f"again-ana demande une revanche : table {rematch}"
            followed = [frame for frame in second.seen if of_type("table", table=rematch)(frame)]
            assert followed and followed[0]["status"] == "open"  # bob follows his new seat
            again = await second.answer(type="chat", table=table, text="/rematch")
            assert again["type"] == "ack" and again["table"] == rematch  # the same, no copy
            return int(rematch)

    rematch = asyncio.run(scenario())
    over_http = server.call(bob, "POST", f"/api/tables/{table}/rematch").json()
    assert over_http["table"] == rematch
    old = httpx.get(f"{server.url}/api/tables/{table}").json()
    new = httpx.get(f"{server.url}/api/tables/{rematch}").json()
    assert (new["game"], new["options"], new["clock"]) == ("wizard", old["options"], 60)
    assert new["room"] == old["room"] and new["status"] == "open" and new["result"] is None
    assert [(seat["name"], seat["kind"], seat["level"]) for seat in new["seats"]] == [
        ("bot easy 2", "bot", "easy"),
        ("again-ana", "human", None),
        ("again-bob", "human", None),
        ("bot easy", "bot", "easy"),
    ]
    server.call(bob, "POST", f"/api/tables/{rematch}/start").raise_for_status()


def test_the_end_is_told_with_names_and_points_and_a_seated_watcher_follows_their_seat(
    server: Server,
) -> None:
    zoe = server.guest("end-zoe")
    created = server.call(zoe, "POST", "/api/tables", game="wizard", players=3, options={})
    table = created.json()["table"]
    server.call(zoe, "POST", f"/api/tables/{table}/options", name="rounds", value="1")
    for _ in range(2):
        server.call(zoe, "POST", f"/api/tables/{table}/bots", level="random").raise_for_status()
    server.call(zoe, "POST", f"/api/tables/{table}/start").raise_for_status()

    async def scenario() -> Frame:
        async with link(server, zoe, "fr") as seen:
            await seen.send(type="watch", table=table)  # opening one's own table
            view = await seen.expect(lambda frame: frame["type"] in ("view", "error"))
            assert view["type"] == "view", view
            assert view["seat"] == 0  # the seat's own view, not a spectator's
            while view["result"] is None:
                if view["to_act"] == 0 and view["legal"]:
                    await seen.send(
                        type="act", table=table, seq=view["seq"], action=view["legal"][0]
                    )
                view = await seen.expect(of_type("view", table=table))
            # the end is told after the last view, so that a log tells the last move first
            return await seen.expect(of_type("notice", key="server.notice.finished"))

    told = asyncio.run(scenario())
    result = httpx.get(f"{server.url}/api/tables/{table}").json()["result"]
    names = ["end-zoe", "bot random", "bot random 2"]
    scores = ", ".join(f"{name} {points:g}" for name, points in zip(names, result, strict=True))
    assert told["text"].startswith(f"la partie est terminée : {scores}. Victoire : ")
    assert ".0" not in told["text"]


def test_a_misclick_is_taken_back_over_the_socket_and_the_seat_sees_its_position_again(
    server: Server,
) -> None:
    token = server.guest("undoer")
    created = server.call(
        token, "POST", "/api/tables", game="wizard", players=3, options={"rounds": "3"}, rated=False
    )
    table = int(created.json()["table"])
    for _ in range(2):
        server.call(token, "POST", f"/api/tables/{table}/bots", level="random").raise_for_status()
    nothing = server.call(token, "POST", f"/api/tables/{table}/take-back")
    assert nothing.status_code == 409 and nothing.json()["code"] == "not_playing"
    server.call(token, "POST", f"/api/tables/{table}/start").raise_for_status()

    def my_turn(frame: Frame) -> bool:
        return of_type("view", table=table)(frame) and frame["to_act"] == frame["seat"]

    async def scenario() -> None:
        async with link(server, token) as me:

            def seen_view() -> dict[str, Any]:
                """The seat's view as the frames so far build it."""
                view: dict[str, Any] = {}
                for frame in me.seen:
                    if of_type("view", table=table)(frame):
                        view = merged_view(view, frame)
                return view

            async def next_turn() -> Frame:
                return await me.expect(my_turn)

            first = await next_turn()
            before = seen_view()
            assert first["take_back"] is False
            refused = await me.answer(type="undo", table=table, seq=first["seq"])
            assert refused["code"] == "nothing_to_take_back"
            assert "no move to take back" in refused["message"]
            await me.send(type="act", table=table, seq=first["seq"], action=first["legal"][0])
            again = await next_turn()
            assert again["seq"] > first["seq"] and again["take_back"] is True
            stale = await me.answer(type="undo", table=table, seq=first["seq"])
            assert stale["code"] == "stale"
            taken = await me.answer(type="undo", table=table, seq=again["seq"])
            assert taken["type"] == "ack" and taken["seq"] == first["seq"]
            # the view and the notice may come before the ack, as a move's do
            back = [frame for frame in me.seen if my_turn(frame)][-1]
            assert back["seq"] == first["seq"] and seen_view() == before
            assert back["legal"] == first["legal"] and back["take_back"] is False
            told = of_type("notice", key="server.notice.taken_back")
            notice = [frame for frame in me.seen if told(frame)] or [await me.expect(told)]
            assert notice[0]["text"] == "undoer took back their last move"
            error = await me.answer(type="chat", table=table, text="/undo")
            assert error["type"] == "error" and error["code"] == "nothing_to_take_back"

    asyncio.run(scenario())
